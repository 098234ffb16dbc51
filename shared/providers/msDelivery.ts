// Owns reading Microsoft's own verdict on where it delivered a copy, from X-Microsoft-Antispam-Mailbox-Delivery.
//
// Microsoft does not document this header (a Microsoft Q&A moderator said so in 2021); what the `dest` field
// means comes from third parties: Oxford University IT's junk-mail guide reads `dest:I` as delivered to the
// inbox, `dest:J` as delivered to Junk Email and `dest:C` as delivered to a custom folder by the user's own rule.
// A `C` says nothing about inbox or junk, so it reads as no verdict, like every other value.
// Example: `ucf:0;jmr:1;auth:0;dest:J;ENG:(20160513016)(750129)(520011016)(944506458)(944626604);`

export type MsDelivery = 'inbox' | 'junk';

const DESTINATIONS: Readonly<Record<string, MsDelivery>> = { I: 'inbox', J: 'junk' };
/** Characters of a value read: a real one is a few hundred, and the rest is split for nothing. */
const MAX_VALUE = 4096;

/** Where Microsoft says it put the copy, or undefined when the header is absent, unclear or says neither. */
export const msDeliveryOf = (headerValue: string | undefined): MsDelivery | undefined => {
  if (!headerValue) return undefined;
  const destinations = new Set<string>();
  for (const field of headerValue.slice(0, MAX_VALUE).split(';')) {
    const colon = field.indexOf(':');
    if (colon === -1 || field.slice(0, colon).trim().toLowerCase() !== 'dest') continue;
    destinations.add(
      field
        .slice(colon + 1)
        .trim()
        .toUpperCase(),
    );
  }
  // Two different `dest` values in one header would be a header nobody has seen: no verdict beats a guess.
  if (destinations.size !== 1) return undefined;
  const [destination = ''] = destinations;
  return DESTINATIONS[destination];
};
