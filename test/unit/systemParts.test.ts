// What `npm test` does first about the system parts, for every combination of present parts and privilege: the
// decision is pure, so a machine that has everything still tests the paths of one that has nothing.
import { describe, expect, it } from 'vitest';
import { KNOTD_PATH } from '../../scripts/lib/dnsServer';
import { asRoot } from '../../scripts/lib/privilege';
import {
  CHROMIUM_PATH,
  type Decision,
  decide,
  SYSTEM_PARTS,
  type SystemPart,
} from '../../scripts/system-parts';

const part = (name: string, extra: Partial<SystemPart> = {}): SystemPart => ({
  name,
  why: `tests of ${name}`,
  present: () => true,
  aptPackages: [`${name}-pkg`, `${name}-extra`],
  ...extra,
});

const mail = part('mail', { runsAsRoot: true });
const java = part('java');
const present = (...names: string[]) => new Set(names);
/** The refusal's line; '' (which every expectation below rejects) for any other decision. */
const refusal = (decision: Decision) => {
  expect(decision.kind).toBe('refuse');
  return decision.kind === 'refuse' ? decision.line : '';
};

describe('system parts: the decision npm test takes before spending time', () => {
  it('proceeds when every part is present and the user may act as root', () => {
    expect(decide([mail, java], present('mail', 'java'), 'root')).toEqual({ kind: 'proceed' });
    expect(decide([mail, java], present('mail', 'java'), 'passwordless-sudo')).toEqual({ kind: 'proceed' });
  });

  it('as root installs exactly the missing parts, saying in one line which packages', () => {
    const decision = decide([mail, java], present('java'), 'root');
    expect(decision).toMatchObject({ kind: 'install', parts: [mail], viaSudo: false });
    const line = decision.kind === 'install' ? decision.line : '';
    expect(line).toContain('apt-get install mail-pkg mail-extra');
    expect(line).not.toContain('java-pkg');
    expect(line).not.toContain('\n');
  });

  it('with passwordless sudo installs through sudo', () => {
    const decision = decide([mail, java], present(), 'passwordless-sudo');
    expect(decision).toMatchObject({ kind: 'install', parts: [mail, java], viaSudo: true });
  });

  it('without root or passwordless sudo refuses with one line naming the command, even when installed', () => {
    for (const installed of [present(), present('mail', 'java')]) {
      const line = refusal(decide([mail, java], installed, 'sudo-asks-password'));
      expect(line).toMatch(/^npm test .* run sudo npm test$/);
      expect(line).not.toContain('\n');
    }
  });

  it('names su when there is no sudo at all', () => {
    expect(refusal(decide([mail], present('mail'), 'no-sudo'))).toMatch(/run su -c 'npm test'$/);
  });

  it('for parts that run as any user, a user without root proceeds when they are installed', () => {
    expect(decide([java], present('java'), 'sudo-asks-password')).toEqual({ kind: 'proceed' });
    expect(refusal(decide([java], present(), 'sudo-asks-password'))).toMatch(
      /run sudo npm run system-packages -- install once$/,
    );
  });

  it('install (not test) without root names the install command, never npm test', () => {
    expect(refusal(decide([mail], present(), 'sudo-asks-password', 'install'))).toMatch(
      /run sudo npm run system-packages -- install once$/,
    );
    expect(decide([mail], present('mail'), 'sudo-asks-password', 'install')).toEqual({ kind: 'proceed' });
  });

  it('runs a command as root directly, or through sudo -n', () => {
    expect(asRoot(['bash', 'x'], 'root')).toEqual(['bash', 'x']);
    expect(asRoot(['bash', 'x'], 'passwordless-sudo')).toEqual(['sudo', '-n', 'bash', 'x']);
  });

  it("Chromium is a part of its own: Debian's chromium package at the path the browser test launches", () => {
    const chromium = SYSTEM_PARTS.find((candidate) => candidate.name.startsWith('Chromium'));
    expect(chromium?.aptPackages).toEqual(['chromium']);
    expect(chromium?.runsAsRoot).toBeFalsy();
    expect(CHROMIUM_PATH).toBe('/usr/bin/chromium');
    // Missing and no right to install: one line naming the install command, as for any part.
    const line = refusal(decide([chromium as SystemPart], present(), 'sudo-asks-password'));
    expect(line).toMatch(/^npm test needs Chromium .* run sudo npm run system-packages -- install once$/);
  });

  it("the DNS server is Debian's Knot, run as any user, at the path the DNS helper starts", () => {
    const knot = SYSTEM_PARTS.find((candidate) => candidate.name.startsWith('Knot DNS'));
    expect(knot?.aptPackages).toEqual(['knot']);
    expect(knot?.runsAsRoot).toBeFalsy();
    expect(KNOTD_PATH).toBe('/usr/sbin/knotd');
    const line = refusal(decide([knot as SystemPart], present(), 'sudo-asks-password'));
    expect(line).toMatch(/^npm test needs Knot DNS .* run sudo npm run system-packages -- install once$/);
  });
});
