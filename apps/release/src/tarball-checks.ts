// publint and "are the types wrong" on a tarball as it will be published, in the release's own process rather than
// through their CLIs: a CLI is a Node process that loads its checker (attw's holds a TypeScript compiler) for one
// tarball, some 2 CPU-seconds each, where one load here serves every tarball of a release. The verdicts are the CLIs':
// publint `--level warning --strict` (any warning or error fails), attw `--profile esm-only` (problems seen only
// through the `node10` and `node16-cjs` resolutions are the CommonJS `require` an ESM-only package does not offer).
import { readFileSync } from 'node:fs';

/** The resolutions attw's `esm-only` profile leaves out. */
const IGNORED_RESOLUTIONS: readonly string[] = ['node10', 'node16-cjs'];

/**
 * What publint and attw find wrong with the tarball, one line each; none when it may be published. `dataSubpaths` are
 * subpaths of the package's `exports` that name a data file other than JSON (`./openapi.yaml`): they have no types
 * for attw to check.
 */
export async function tarballProblems(tarball: string, dataSubpaths: readonly string[] = []): Promise<string[]> {
  const data = new Uint8Array(readFileSync(tarball));
  // Loaded at the first tarball, not with the release command: its help, a wrong option and `--version-only` check
  // no tarball.
  const [{ publint }, { formatMessage }, attw, { problemKindInfo }] = await Promise.all([
    import('publint'),
    import('publint/utils'),
    import('@arethetypeswrong/core'),
    import('@arethetypeswrong/core/problems'),
  ]);
  const lint = await publint({ pack: { tarball: data.buffer }, level: 'warning', strict: true });
  const problems = lint.messages.map((m) => `publint: ${formatMessage(m, lint.pkg) ?? m.code}`);
  const analysis = await attw.checkPackage(attw.createPackageFromTarballData(data), {
    excludeEntrypoints: [...dataSubpaths],
  });
  if (!analysis.types) problems.push('attw: the package has no types');
  else
    for (const problem of analysis.problems) {
      if ('resolutionKind' in problem && IGNORED_RESOLUTIONS.includes(problem.resolutionKind)) continue;
      const where = Object.entries(problem)
        .filter(([key, value]) => key !== 'kind' && (typeof value === 'string' || typeof value === 'number'))
        .map(([key, value]) => `${key} ${value}`)
        .join(', ');
      problems.push(`attw: ${problemKindInfo[problem.kind].title} (${problem.kind}${where ? `; ${where}` : ''})`);
    }
  return problems;
}
