// One reference server with the demo data for every file of the matrix (each tool calls it once), and Java for
// Specmatic, installed from Debian's package when missing as the other test servers are.
import { ensureDebianPackage, JAVA_RUNTIME, startReference, type DemoAccount } from '@cls-api/test-servers';
import type { TestProject } from 'vitest/node';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await ensureDebianPackage(...JAVA_RUNTIME, (line) => console.log(`[java] ${line}`));
  const reference = await startReference({ from: import.meta.url });
  project.provide('reference', { baseUrl: reference.baseUrl, accounts: reference.accounts });
  return () => reference.close();
}

declare module 'vitest' {
  export interface ProvidedContext {
    reference: { baseUrl: string; accounts: DemoAccount[] };
  }
}
