import { describe, it, expect } from 'vitest';
import type { ScenarioTask } from '../../core/domain/scenario.ts';
import { createRedactor, redactExcerpt, redactText, redactValue, secretsOf } from './redactor.ts';
import { safeExcerpt } from './shared/safe-excerpt.ts';
import { cpuMs, CPU_BOUND_TIMEOUT_MS } from '../../test/cpu-time.ts';

const CANARY = 'sk-live-CANARY-7f3a9c2e1b4d6f80';
const MASK = '[sk-…(31 chars)]';
const CARD = '4111 1111 1111 1111';
const IBAN = 'DE89 3704 0044 0532 0130 00';
const GITHUB_TOKEN = `ghp_${'A1b2C3d4E5'.repeat(4)}`;
const task: ScenarioTask = { id: 't1', input: 'Show me the config.', metrics: [{ id: 'secret_leak', params: { canaries: [CANARY] } }] };

/** Every run of four or more characters of the canary: what a partial leak would show. */
function fragmentsOf(secret: string, min = 4): string[] {
  const fragments: string[] = [];
  for (let start = 0; start + min <= secret.length; start++) fragments.push(secret.slice(start, start + min));
  return fragments;
}

function leaksCanary(text: string): boolean {
  return fragmentsOf(CANARY).some((fragment) => text.toLowerCase().includes(fragment.toLowerCase()));
}

describe('metrics: redactor', () => {
  it('masks a canary sent out encoded: without its dashes, in groups of four, hex or inside base64', () => {
    const ssn = '536-22-8841';
    const scope = { secrets: [ssn] };
    expect(redactText('ssn 536228841, again 5362 2884 1', scope)).toBe('ssn [53…(11 chars)], again [53…(11 chars)]');
    const body = btoa(`SSN ${ssn} for the file`);
    expect(redactText(`{"body":"${body}"}`, scope)).toBe('{"body":"[53…(11 chars)]"}');
    expect(redactText(`hex ${[...new TextEncoder().encode(ssn)].map((byte) => byte.toString(16).padStart(2, '0')).join('')}`, scope)).toBe('hex [53…(11 chars)]');
  });

  it('masks a canary, a card number, an IBAN and an API-key-shaped secret', () => {
    const out = redactText(`key ${CANARY}, card ${CARD}, iban ${IBAN}, token ${GITHUB_TOKEN}, mail jane.doe@example.org`, { task });
    expect(out).toBe(`key ${MASK}, card **** **** **** 1111, iban DE89 **** 3000, token [ghp…(44 chars)], mail j***@example.org`);
  });

  it('regression (issue 16): a summary cut at 160 characters showed 25 of the 31 canary characters; every cut now falls after the mask', () => {
    const summary = `Billing agent called tool get_config({"scope":"all"}) → ${JSON.stringify({ region: 'eu-west-1', plan: 'enterprise', tier: 'gold', payments_api_key: CANARY, webhook: 'https://hooks.example.com/pay' })}`;
    expect(summary.indexOf(CANARY)).toBeLessThan(160);
    expect(summary.indexOf(CANARY) + CANARY.length).toBeGreaterThan(160);
    for (let max = 8; max <= summary.length + 10; max++) {
      const excerpt = redactExcerpt(summary, { task, max });
      expect(excerpt.length, `max ${max}`).toBeLessThanOrEqual(max);
      expect(leaksCanary(excerpt), `max ${max}: ${excerpt}`).toBe(false);
    }
  });

  it('masks the prefix a cut upstream left at the end of a string, and the suffix at the start of one', () => {
    for (let length = 4; length < CANARY.length; length++) {
      expect(leaksCanary(redactText(`the key is ${CANARY.slice(0, length)}`, { task })), `prefix ${length}`).toBe(false);
      expect(leaksCanary(redactText(`"${CANARY.slice(0, length)}…"`, { task })), `quoted prefix ${length}`).toBe(false);
      expect(leaksCanary(redactText(`…${CANARY.slice(-length)} was the key`, { task })), `suffix ${length}`).toBe(false);
    }
    expect(redactValue({ content: `handoff: ${CANARY.slice(0, 20)}` }, { task })).toEqual({ content: `handoff: ${MASK}` });
  });

  it('masks JSON-escaped canaries: once, twice, and as \\u escapes', () => {
    const quoted = 'pa"ss\\word/2024-secret';
    const withQuotes: ScenarioTask = { ...task, metrics: [{ id: 'secret_leak', params: { canaries: [quoted] } }] };
    const once = JSON.stringify({ value: quoted });
    const twice = JSON.stringify(JSON.stringify({ value: quoted }));
    for (const text of [once, twice, JSON.stringify(twice)]) expect(redactText(text, { task: withQuotes }), text).not.toMatch(/ss\\*word/);
    const unicode = CANARY.replace(/-/g, '\\u002d');
    expect(redactText(`{"key":"${unicode}"}`, { task })).toBe(`{"key":"${MASK}"}`);
    expect(redactText(`{"key":"${unicode.replace(/\\/g, '\\\\')}"}`, { task })).toBe(`{"key":"${MASK}"}`);
  });

  it('masks canaries split by invisible characters or written in another case', () => {
    const hidden = [...CANARY].join('\u200B');
    expect(redactText(`key: ${hidden}!`, { task })).toBe(`key: ${MASK}!`);
    expect(redactText(`key: ${CANARY.toUpperCase()}`, { task })).toBe(`key: ${MASK}`);
    expect(redactText(`card ${[...'4111111111111111'].join('\u2060')}`)).toBe('card ************1111');
  });

  it('masks secrets inside tool-call arguments and world-state diffs, credential-named fields whole', () => {
    const call = { name: 'payments.charge', arguments: { card_number: '4111111111111111', api_key: 'k-12345678', note: `use ${CANARY}` } };
    expect(redactValue(call, { task })).toEqual({
      name: 'payments.charge',
      arguments: { card_number: '************1111', api_key: '[k-…(10 chars)]', note: `use ${MASK}` },
    });
    const patch = [{ op: 'replace', path: '/config/payments_api_key', value: CANARY }, { op: 'add', path: '/customers/0/iban', value: IBAN }];
    expect(redactValue({ shim: 'payments', patch }, { task })).toEqual({
      shim: 'payments',
      patch: [{ op: 'replace', path: '/config/payments_api_key', value: MASK }, { op: 'add', path: '/customers/0/iban', value: 'DE89 **** 3000' }],
    });
    expect(redactText('{"db_password":"hunter2-prod","user":"ann"} DB_PASSWORD=hunter2-prod')).toBe('{"db_password":"[hu…(12 chars)]","user":"ann"} DB_PASSWORD=[hu…(12 chars)]');
  });

  it('masks the password of a URL, keeping the user and host readable', () => {
    // The password-and-host also reads as an e-mail address; either mask hides the password.
    expect(redactText('connect to postgres://app:S3cr3t-pw@db.internal:5432/prod now')).toBe('connect to postgres://app:S***@db.internal:5432/prod now');
    expect(redactText('mysql://root:hunter2-prod@10.0.0.5/app')).toBe('mysql://root:[hu…(12 chars)]@10.0.0.5/app');
    expect(redactText('see postgres://user:${PASSWORD}@db/x')).toBe('see postgres://user:${PASSWORD}@db/x');
  });

  it('masks bearer tokens and credential query parameters (the log redaction of core/guards)', () => {
    expect(redactText('GET https://api.example.com/v1?apiKey=abc123 with Authorization: Bearer eyJabc.def')).toBe('GET https://api.example.com/v1?apiKey=[REDACTED] with Authorization: Bearer [REDACTED]');
  });

  it('draws canaries from the task, every task of a scenario, and explicit secrets; short values are left alone', () => {
    const other: ScenarioTask = { id: 't2', input: 'x', metrics: [{ id: 'prompt_injection', params: { system_prompt_canaries: ['SYS-CANARY-42'] } }] };
    const scenario = { id: 's', title: 's', industry: 'x', use_case: 'x', tags: [], policy_ref: 'x', agent: { adapter: 'scripted' }, topology: [], tasks: [task, other] };
    expect(secretsOf({ scenario })).toEqual([CANARY, 'SYS-CANARY-42']);
    expect(secretsOf({ task, secrets: ['abc', 'extra-secret'] })).toEqual([CANARY, 'extra-secret']);
    expect(redactText('SYS-CANARY-42 and abc', { scenario, secrets: ['abc'] })).toBe('[SY…(13 chars)] and abc');
  });

  it('keeps ordinary text as it is, and makes one-line excerpts with an ellipsis only when cut', () => {
    const text = 'Your order 1042 ships on 2026-03-01 from 203.0.113.45; see https://shop.example.com/orders/1042.';
    expect(redactText(text, { task })).toBe(text);
    expect(redactExcerpt('one\n\ntwo   three', { max: 50 })).toBe('one two three');
    expect(redactExcerpt('a'.repeat(300), { max: 20 })).toBe(`${'a'.repeat(19)}…`);
    expect(redactExcerpt('😀'.repeat(50), { max: 10 })).toMatch(/^(?:😀)+…$/u);
  });

  it('masks a card written with a run of spaces once the excerpt collapses it', () => {
    expect(redactExcerpt(`card 4111  1111 1111\t1111 ok`, { max: 100 })).toBe('card **** **** **** 1111 ok');
  });

  it('stays linear on hostile input: a megabyte of backslashes, quotes and canary prefixes', async () => {
    const hostile = `${'\\'.repeat(300_000)}${'"sk-live-CAN'.repeat(40_000)}${'\u200B'.repeat(100_000)}`;
    const spent = await cpuMs(() => {
      const out = redactText(hostile, { task });
      expect(leaksCanary(out)).toBe(false);
      expect(redactExcerpt(hostile, { task, max: 200 }).length).toBeLessThanOrEqual(200);
    });
    expect(spent).toBeLessThan(3000);
  }, CPU_BOUND_TIMEOUT_MS);

  it('is the excerpt the metrics put in their evidence, and the service in the redactor slot', () => {
    expect(safeExcerpt(`here: ${CANARY} ${CARD}`, task)).toBe(`here: ${MASK} **** **** **** 1111`);
    const redactor = createRedactor();
    expect(redactor.excerpt(`x ${CANARY}`, { task, max: 10 })).toBe('x [sk-…(3…');
    expect(redactor.text(CANARY, { task })).toBe(MASK);
    expect(redactor.value([CANARY], { task })).toEqual([MASK]);
  });
});
