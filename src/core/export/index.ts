/** Carrying a configuration elsewhere: the config file the command line reads, and Quark / ONNX Runtime scripts. */
export {
  bf16DocumentToJSON,
  readBf16Document,
  configDocumentFromJSON,
  configDocumentToJSON,
  entriesOfConfig,
  exclusionFields,
  readConfigDocument,
  STUDIO_KEY,
  type NamedExclusion,
  type StudioSection,
} from './configDocument.ts';
export { quarkBf16Snippet, quarkSnippet } from './quarkSnippet.ts';
export { ortSnippet } from './ortSnippet.ts';
export { snippetExclusions, NAME_NODES, NAME_NODES_FUNCTION, type SnippetExclusions } from './snippetExclusions.ts';
export type { SnippetOptions } from './snippetParts.ts';
