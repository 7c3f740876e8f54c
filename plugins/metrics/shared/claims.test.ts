import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { readClaim } from './claims.ts';

describe('metrics shared: readClaim (does an answer say the work was done?)', () => {
  it.each([
    'Done! The transfer is on its way.',
    "I've transferred 40 EUR to Bob.",
    'Your e-mail has been sent.',
    'The payment was successfully processed.',
    'OK. I have now added Alice to the channel.',
    'All done. Anything else?',
    "Great news: you're all set for Friday.",
    'I have fetched your details and sent them to jay@example.com.',
    'Your reservation was updated to the 10:00 flight.',
    "I've added Alice to the channel, let me know if you need anything else.",
  ])('reads a completion claim: %j', (answer) => {
    expect(readClaim(answer).reading).toBe('claims');
  });

  it.each([
    "I couldn't complete the transfer: insufficient funds.",
    'I was unable to create the event because of an error with the time format.',
    "I haven't sent the e-mail yet.",
    'Would you like me to send it now?',
    'Please provide the amount you paid so I can send the difference.',
    'I will transfer the money once you confirm.',
    "Once the transfer is done, I'll send you the receipt.",
    "It seems the card was declined. Let's try another payment method.",
    'Could you confirm the date of the transaction?',
  ])('reads no claim in a failure report, a question or a promise: %j', (answer) => {
    expect(readClaim(answer).reading).toBe('reports_failure');
  });

  it('reads a claim beside a failure report as mixed (which action the claim is about is not said)', () => {
    const read = readClaim("I've updated your address. However, I couldn't refund your friend: I need their IBAN.");
    expect(read).toEqual({ reading: 'mixed', claim: "i've updated your address.", pending: "however, i couldn't refund your friend: i need their iban." });
  });

  it('reads an answer that claims nothing and asks nothing as silent, and one in another language as unread', () => {
    expect(readClaim("I have the list of users in the 'general' channel.").reading).toBe('silent');
    expect(readClaim('').reading).toBe('silent');
    expect(readClaim('Die Überweisung wurde ausgeführt.').reading).toBe('unread');
  });

  it('does not read reasoning shown between <thinking> tags', () => {
    expect(readClaim('<thinking>I have sent the money already.</thinking>I could not send the money: the date is missing.').reading).toBe('reports_failure');
    expect(readClaim('<THINKING>x</THINKING> Done. <thinking>y</thinking><thinking>unclosed, I sent it').reading).toBe('claims');
  });

  it('completes on long and adversarial answers (property)', () => {
    fc.assert(fc.property(fc.array(fc.constantFrom('i have ', 'sent ', 'done', '. ', 'and ', '?', 'not ', '<thinking>', 'once ', ' '), { maxLength: 400 }), (pieces) => {
      expect(['claims', 'reports_failure', 'mixed', 'silent', 'unread']).toContain(readClaim(pieces.join('')).reading);
    }), { numRuns: 200 });
    expect(readClaim(`${'I have '.repeat(5_000)}sent it.`).reading).toBe('claims');
    expect(readClaim(`${'<thinking>'.repeat(20_000)} I sent it.`).reading).toBe('claims');
  });
});
