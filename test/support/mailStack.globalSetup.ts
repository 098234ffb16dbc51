// Starts the loopback mail stack once for the whole run and stops it afterwards.
import { mailStack } from './mailStack';

export default function setup() {
  mailStack('start');
  return () => {
    mailStack('stop');
  };
}
