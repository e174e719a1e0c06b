/**
 * The float nodes' reasons with the names the user gave their exclusions: the quantizer names a rule by what it
 * holds ("excluded (subgraph Slice_217 → Concat_241)", core exclude/resolve.ts), the page's list by the user's
 * name ("post-processing tail"); both are shown, the name first. Reasons that match no named entry stay as they are.
 */
import { nodeRule, subgraphRule } from '../../../core/exclude/index.ts';
import type { ExclusionEntry } from '../../store/exclusionSlice.ts';

/** Reason → the same reason with the user's name of its exclusion, for the entries that have one. */
export function namedReasons(entries: readonly ExclusionEntry[]): (reason: string) => string {
  const names = new Map<string, string>();
  for (const e of entries) {
    if (!e.name.trim()) continue;
    if (e.kind === 'subgraph' && !e.toFp32) names.set(`excluded (${subgraphRule(e)})`, e.name);
    else if (e.kind === 'nodes') for (const n of e.nodes) names.set(`excluded (${nodeRule(n)})`, e.name);
  }
  return (reason) => {
    const name = names.get(reason);
    return name ? `excluded: “${name}” (${reason.slice('excluded ('.length, -1)})` : reason;
  };
}
