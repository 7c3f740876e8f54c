import { describe, it, expect } from 'vitest';
import { Problem, PROBLEM_CATALOGUE, isProblem, notFound } from './problems.ts';

describe('core: problems', () => {
  it('covers every code of the contract with its status', () => {
    const contract: Record<string, number> = {
      validation_failed: 400, invalid_json: 400, unauthorized: 401, forbidden: 403, path_outside_jail: 403,
      ssrf_blocked: 400, not_found: 404, payload_too_large: 413, unsupported_media_type: 415,
      spec_parse_failed: 422, rate_limited: 429, unavailable: 503, internal: 500,
    };
    for (const [code, status] of Object.entries(contract)) {
      expect(PROBLEM_CATALOGUE[code as keyof typeof PROBLEM_CATALOGUE]?.status, code).toBe(status);
    }
  });

  it('renders RFC 9457 JSON with code, request id and field errors', () => {
    const problem = new Problem('validation_failed', { detail: 'body is invalid', errors: [{ path: '/id', message: 'is required' }] });
    expect(problem.toJSON('req-12345678')).toEqual({
      type: 'https://aeh.dev/problems/validation_failed',
      title: 'Validation failed',
      status: 400,
      detail: 'body is invalid',
      code: 'validation_failed',
      request_id: 'req-12345678',
      errors: [{ path: '/id', message: 'is required' }],
    });
  });

  it('defaults the detail to the title and leaves out errors when there are none', () => {
    const body = new Problem('not_found').toJSON('r');
    expect(body.detail).toBe('Not found');
    expect(body).not.toHaveProperty('errors');
  });

  it('adds extra members but never lets them replace the standard ones', () => {
    const body = new Problem('spec_parse_failed', { extra: { pitfalls: [{ code: 'NO_TASKS', line: 1, message: 'm' }] } }).toJSON('r');
    expect(body.pitfalls).toHaveLength(1);
    const hostile = new Problem('forbidden', { extra: { status: 200, code: 'ok', request_id: 'forged', permission: 'runs:read' } }).toJSON('real-id');
    expect(hostile).toMatchObject({ status: 403, code: 'forbidden', request_id: 'real-id', permission: 'runs:read' });
  });

  it('builds a response with the media type, request id and extra headers', async () => {
    const response = new Problem('rate_limited', { headers: { 'Retry-After': '30' } }).toResponse('req-abcdefgh');
    expect(response.status).toBe(429);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.headers.get('x-request-id')).toBe('req-abcdefgh');
    expect(response.headers.get('retry-after')).toBe('30');
    expect((await response.json()).request_id).toBe('req-abcdefgh');
  });

  it('keeps extra members first, in order, and never lets a header name repeat by case', async () => {
    const body = new Problem('rate_limited', { extra: { retry_after_s: 3, status: 200 } }).toJSON('r');
    expect(Object.keys(body)).toEqual(['retry_after_s', 'status', 'type', 'title', 'detail', 'code', 'request_id']);
    expect(body.status).toBe(429);
    const response = new Problem('unauthorized', { headers: { 'Content-Type': 'text/plain', 'WWW-Authenticate': 'Bearer' } }).toResponse('r');
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(new Problem('not_found').toResponse().headers.get('x-request-id')).toBeNull();
  });

  it('captures no stack (an answer, not a bug) and leaves the stack limit of other errors as it was', () => {
    const before = Error.stackTraceLimit;
    const problem = new Problem('not_found', { detail: 'run "x" not found' });
    expect(problem.stack).toBe('Problem: run "x" not found');
    expect(problem).toBeInstanceOf(Error);
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error('plain').stack).toContain('problems.test.ts');
  });

  it('keeps the cause for the log but never renders it', () => {
    const problem = new Problem('unavailable', { detail: 'storage is down', cause: new Error('ECONNREFUSED 10.0.0.5:6379 password=x') });
    expect(problem.cause).toBeInstanceOf(Error);
    expect(JSON.stringify(problem.toJSON('r'))).not.toContain('ECONNREFUSED');
  });

  it('recognises problems, also from another copy of the module', () => {
    expect(isProblem(new Problem('internal'))).toBe(true);
    expect(isProblem(notFound('run "x"'))).toBe(true);
    expect(notFound('run "x"').detail).toBe('run "x" not found');
    expect(isProblem(new Error('plain'))).toBe(false);
    expect(isProblem(null)).toBe(false);
    const lookalike = { name: 'Problem', code: 'not_found', toResponse: () => new Response() };
    expect(isProblem(lookalike)).toBe(true);
  });
});
