/**
 * What the two sides of a comparison name: a run id; for the base also `latest` (the newest succeeded run of
 * the head's scenario, content and agent created before it) or `baseline` (the run pinned for that scenario and
 * agent, when it is of the head's content: issue 32 item 7).
 * `suite:<suite_id>` on both sides compares two suites (suites.ts).
 */
import type { Principal } from '../../core/auth-manager.ts';
import { isValidRunId } from '../../core/domain/runs.ts';
import type { Services } from '../../core/services.ts';
import { Problem } from '../../core/problems.ts';
import { baselineContent, keysOfRun, readBaseline } from './baselines.ts';
import type { RunSnapshot } from './snapshot.ts';

/** Index pages walked looking for `latest` (each reads at most 250 index entries): the newest ~5,000 runs. */
const LATEST_PAGES = 20;

interface ListedRun {
  run_id: string;
  created_at: string;
}

/** A 404 that says the base is missing (not the head), so a gate can tell "no baseline yet" from a wrong id. */
function noBaseline(detail: string): Problem {
  return new Problem('not_found', { detail, extra: { baseline_missing: true } });
}

/** Refuses a side that is neither a run id nor a known keyword. */
export function checkRef(ref: string | undefined, name: 'base' | 'head'): string {
  if (!ref) throw new Problem('validation_failed', { detail: `${name} is required`, errors: [{ path: `/${name}`, message: 'is required' }] });
  if (ref.startsWith('suite:')) return ref;
  const keywords = name === 'base' ? ['latest', 'baseline'] : [];
  if (!keywords.includes(ref) && !isValidRunId(ref)) {
    throw new Problem('validation_failed', { detail: `${name} must be a run id${keywords.length ? ' or one of latest, baseline' : ''}`, errors: [{ path: `/${name}`, message: 'is not a run id' }] });
  }
  return ref;
}

/** The newest succeeded run of the head's scenario, content and agent created before the head, through the run list. */
async function latestBefore(services: Services, principal: Principal | undefined, head: RunSnapshot): Promise<string> {
  let cursor: string | undefined;
  for (let page = 0; page < LATEST_PAGES; page++) {
    const query = new URLSearchParams({ scenario_id: head.run.scenario_id, status: 'succeeded', limit: '100', ...(cursor ? { cursor } : {}) });
    const request = new Request(`http://compare.internal/api/v1/runs?${query}`);
    const response = principal ? await services.dispatchAs(request, principal) : await services.dispatch(request);
    if (response.status !== 200) throw new Problem('unavailable', { detail: `listing the runs of scenario ${head.run.scenario_id} answered ${response.status}` });
    const listed = (await response.json()) as { items: ListedRun[]; next_cursor: string | null };
    for (const item of listed.items) {
      if (item.run_id === head.run.run_id || item.created_at > head.run.created_at) continue;
      const candidate = await keysOfRun(services.store, item.run_id);
      // Another document under the same id is another scenario, whatever it scored.
      if (candidate?.agent.key === head.agent.key && candidate.contentHash === head.contentHash) return item.run_id;
    }
    if (!listed.next_cursor) break;
    cursor = listed.next_cursor;
  }
  throw noBaseline(`no succeeded run of scenario ${head.run.scenario_id} (this content) with agent ${head.agent.key} before ${head.run.run_id} (among the newest runs)`);
}

/** The run id the base names, given the head. */
export async function resolveBase(services: Services, principal: Principal | undefined, base: string, head: RunSnapshot): Promise<string> {
  if (base === 'latest') return latestBefore(services, principal, head);
  if (base === 'baseline') {
    const pinned = await readBaseline(services.store, head.run.scenario_id, head.agent.key);
    if (!pinned) throw noBaseline(`no baseline is pinned for scenario ${head.run.scenario_id} and agent ${head.agent.key}`);
    if ((await baselineContent(services.store, pinned)) !== head.contentHash) {
      throw noBaseline(`the baseline pinned for scenario ${head.run.scenario_id} and agent ${head.agent.key} (run ${pinned.run_id}) ran other content than run ${head.run.run_id}: pin a run of this content`);
    }
    return pinned.run_id;
  }
  return base;
}
