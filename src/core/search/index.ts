/**
 * The measured searches: the exclusion search (which nodes stay float), automatic mixed precision and the growth of
 * its 16-bit set, each measuring candidate configurations with src/core/evaluate. Public face of src/core/search.
 */
export { rankLayers, tailSubgraph, type RankBy, type RankedLayer, type Tail } from './candidates.ts';
export {
  suggestExclusions,
  withCandidate,
  type Candidate,
  type Measurement,
  type StopReason,
  type SuggestOptions,
  type SuggestResult,
  type SuggestStep,
} from './suggest.ts';
