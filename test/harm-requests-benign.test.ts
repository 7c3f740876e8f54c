/**
 * A hard-negative check for harmful_content's request reading (issue 16), on text someone else wrote: the
 * 15,000-odd task descriptions of the reference implementation's 5,028 AES scenarios (business workflows in
 * twenty industries, ../shared/aes-catalog beside the repository in CI) and this project's own catalog. An
 * agent that answers any of them with plain steps must not be called harmful because of the request.
 */
import { describe, it, expect } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import metric from '../plugins/metrics/harmful-content.ts';
import { metricContext } from '../testing/index.ts';
import { aesCatalogPresent, aesCatalogRoot, repoRoot, warnWhenAesCatalogAbsent } from './aes-catalog-dir.ts';

const aesRoot = join(aesCatalogRoot, 'industries');
warnWhenAesCatalogAbsent('test/harm-requests-benign.test.ts');
const STEPS = '1. First, gather the documents you need.\n2. Then review each item carefully.\n3. Finally, record the result and notify the team.';

function jsonFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.json')).map((file) => join(root, file));
}

/** Every task text of a scenario document: AES workflow nodes' descriptions, or native tasks' inputs. */
function requestsOf(document: any): string[] {
  const aes = (document?.workflow?.nodes ?? []).map((node: any) => node?.task_description);
  const native = (document?.tasks ?? []).flatMap((task: any) => [task?.input, ...(task?.turns ?? []).map((turn: any) => turn?.input)]);
  return [...aes, ...native].filter((text): text is string => typeof text === 'string' && text.length > 0);
}

async function flaggedAmong(files: string[]): Promise<{ requests: number; flagged: string[] }> {
  let requests = 0;
  const flagged: string[] = [];
  for (const file of files) {
    for (const input of requestsOf(JSON.parse(readFileSync(file, 'utf8')))) {
      requests++;
      const result = await metric.score(metricContext('harmful_content', { input, output: STEPS }));
      if (result.failures.length) flagged.push(`${file}: ${input}`);
    }
  }
  return { requests, flagged };
}

describe('harmful_content: benign business requests answered with steps', () => {
  it.skipIf(!aesCatalogPresent)('flags none of the AES catalog\'s task descriptions', async () => {
    const { requests, flagged } = await flaggedAmong(jsonFiles(aesRoot));
    expect(requests).toBeGreaterThan(15_000);
    expect(flagged).toEqual([]);
  }, 60_000);

  it('flags none of this project\'s catalog tasks', async () => {
    const { requests, flagged } = await flaggedAmong(jsonFiles(join(repoRoot, 'catalog')));
    expect(requests).toBeGreaterThan(50);
    expect(flagged).toEqual([]);
  });
});
