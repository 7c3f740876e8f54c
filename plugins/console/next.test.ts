import { describe, it, expect } from 'vitest';
import { sameOriginPath } from './next.ts';

describe('console: sameOriginPath (sign-in next, issue 13 item 11)', () => {
  it.each([
    ['/runs/run_1', '/runs/run_1'],
    ['/?status=failed&scenario_id=x', '/?status=failed&scenario_id=x'],
    ['/catalog?q=refund#results', '/catalog?q=refund#results'],
    ['/runs/../health', '/health'],
    ['/%2F/evil.example', '/%2F/evil.example'],
  ])('keeps the same-origin path %j', (next, expected) => {
    expect(sameOriginPath(next)).toBe(expected);
  });

  it.each([
    'https://evil.example', 'http://evil.example/runs', '//evil.example', '///evil.example', '/\\evil.example', '\\\\evil.example',
    '/\\/evil.example', '\\/evil.example', '/\t/evil.example', '/\n/evil.example', '/\r//evil.example', ' /runs', 'javascript:alert(1)',
    'JaVaScRiPt:alert(1)', 'data:text/html,<script>alert(1)</script>', 'evil.example', 'runs/x', '', '/'.padEnd(3000, 'a'),
    '%2F%2Fevil.example', '/.//evil.example', '/./\\evil.example', '\u0000/x', 'https:evil.example', '/\u007f/evil.example',
  ])('refuses %j (goes home)', (next) => {
    expect(sameOriginPath(next)).toBe('/');
  });

  it('goes home without a next', () => {
    expect(sameOriginPath(undefined)).toBe('/');
    expect(sameOriginPath(null)).toBe('/');
  });
});
