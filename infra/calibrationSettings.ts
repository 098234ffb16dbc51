// Owns reading the calibration's deploy settings: how often it runs, the control's From, the control inbox alarm.
import { CALIBRATION_EVERY_RULE, parseCalibrationEvery } from '../shared/calibration';
import { EMAIL, fail, numberOf, optionalMatching, type ReadContext } from './settingsReaders';

/** `6h`, `90m`, `1d`: how often the calibration runs; absent, no calibration. */
const calibrationEveryMs = (read: ReadContext): number | undefined => {
  const value = read('calibrationEvery');
  if (value === undefined) return undefined;
  return parseCalibrationEvery(value) ?? fail('calibrationEvery', value, CALIBRATION_EVERY_RULE);
};

const controlFrom = optionalMatching('controlFrom', EMAIL, 'an email address at a domain you control');

/** The control's From is required once a calibration is scheduled: there is no sensible default address. */
export const calibrationSettings = (read: ReadContext, defaultThreshold: number) => {
  const every = calibrationEveryMs(read);
  const from = controlFrom(read);
  if (every !== undefined && from === undefined)
    fail('controlFrom', undefined, 'an email address at a domain you control when calibrationEvery is set');
  const threshold = read('controlInboxAlarmThreshold');
  const parsed =
    threshold === undefined
      ? defaultThreshold
      : numberOf('controlInboxAlarmThreshold', threshold, 'a rate from 0 to 1');
  return {
    calibrationEveryMs: every,
    controlFrom: from,
    controlInboxAlarmThreshold:
      parsed > 0 && parsed <= 1
        ? parsed
        : fail('controlInboxAlarmThreshold', threshold, 'a rate above 0, at most 1'),
  };
};
