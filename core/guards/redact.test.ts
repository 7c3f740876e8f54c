import { describe, it, expect } from 'vitest';
import { redactText, redactValue, redactingLogger } from './redact.ts';

const KEY = 'k'.repeat(64);

describe('core: redaction', () => {
  it('removes credential query parameters in any case and position', () => {
    expect(redactText(`GET /api/info?apiKey=${KEY}`)).toBe('GET /api/info?apiKey=[REDACTED]');
    expect(redactText(`http://h/x?a=1&APIKEY=${KEY}&b=2#f`)).toBe('http://h/x?a=1&APIKEY=[REDACTED]&b=2#f');
    expect(redactText('see /cb?access_token=abc.def.ghi and api_key=zzz')).toBe('see /cb?access_token=[REDACTED] and api_key=[REDACTED]');
    expect(redactText('nothing here?apple=1')).toBe('nothing here?apple=1');
  });

  it('removes bearer tokens and known secret values', () => {
    expect(redactText('Authorization: Bearer eyJa.eyJb.sig')).toBe('Authorization: Bearer [REDACTED]');
    expect(redactText(`key is ${KEY}.`, [KEY])).toBe('key is [REDACTED].');
  });

  it('redacts nested fields, credential-named fields whole, and errors', () => {
    const value = redactValue({ url: `/x?apiKey=${KEY}`, headers: { 'X-Api-Key': KEY, accept: 'json' }, list: [`Bearer ${KEY}`], error: new Error(`at /y?apikey=${KEY}`) }, [KEY]);
    expect(JSON.stringify(value)).not.toContain(KEY);
    expect(value).toMatchObject({ headers: { 'X-Api-Key': '[REDACTED]', accept: 'json' } });
  });

  it('wraps a logger so that every line is redacted', () => {
    const lines: string[] = [];
    const sink = { info: (m: string, f?: object) => void lines.push(m + JSON.stringify(f)), warn: (m: string, f?: object) => void lines.push(m + JSON.stringify(f)), error: (m: string, f?: object) => void lines.push(m + JSON.stringify(f)) };
    const logger = redactingLogger(sink, [KEY, undefined]);
    logger.info(`request /a?apiKey=${KEY}`);
    logger.warn('w', { cause: `${KEY}` });
    logger.error('e', { stack: `Error at /b?api-key=${KEY}` });
    expect(lines).toHaveLength(3);
    expect(lines.join('\n')).not.toContain(KEY);
  });
});
