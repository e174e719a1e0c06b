/**
 * What every bench case reads the same way: a `key=value` argument from its command line, and a clock of the wall and
 * CPU seconds since the case started (the CPU figure is the steadier one on the shared cores).
 */

/** The value of `key=value` among the case's arguments (its command line after the script), undefined where absent. */
export function caseOption(key: string, args: readonly string[] = process.argv.slice(2)): string | undefined {
  return args.find((a) => a.startsWith(`${key}=`))?.slice(key.length + 1);
}

/** A clock started now: each call gives the whole wall and CPU (user + system) seconds since, rounded. */
export function caseClock(): () => { wallS: number; cpuS: number } {
  const started = performance.now();
  const cpuAtStart = process.cpuUsage();
  return () => {
    const c = process.cpuUsage(cpuAtStart);
    return { wallS: Math.round((performance.now() - started) / 1000), cpuS: Math.round((c.user + c.system) / 1e6) };
  };
}

/** caseOption read as a number, undefined where absent. */
export function caseNumber(key: string, args: readonly string[] = process.argv.slice(2)): number | undefined {
  const value = caseOption(key, args);
  return value === undefined ? undefined : Number(value);
}
