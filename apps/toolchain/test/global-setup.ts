// One reference server with the demo data for every file of the matrix (each tool calls it once), and Java for
// Specmatic, installed from Debian's package when missing as the other test servers are. A set-up that fails is
// handed to the tests rather than thrown: thrown here it would end the run without a per-test result, and the JSON
// report the root summary reads would count nothing as failed.
import { ensureDebianPackage, JAVA_RUNTIME, startReference, type DemoAccount } from '@cls-api/test-servers';
import type { TestProject } from 'vitest/node';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  try {
    await ensureDebianPackage(...JAVA_RUNTIME, (line) => console.log(`[java] ${line}`));
    const reference = await startReference({ from: import.meta.url });
    project.provide('reference', { baseUrl: reference.baseUrl, accounts: reference.accounts });
    return () => reference.close();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`[toolchain] set-up failed: ${message}`);
    project.provide('reference', { error: message });
    return async () => undefined;
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    reference: { baseUrl: string; accounts: DemoAccount[] } | { error: string };
  }
}
