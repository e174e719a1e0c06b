// Types of allocator.js (plain JavaScript: it runs before tsx is registered).
export declare const QSTUDIO_TUNABLES: string;
export declare function allocatorEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  platform: string,
  execArgv?: readonly string[],
): Record<string, string | undefined> | null;
export declare function runInChild(
  script: string,
  args: readonly string[],
  env: Record<string, string | undefined>,
): void;
