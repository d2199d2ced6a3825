/** A package's own test settings: its limits, and what it sets up once or runs one file at a time. */
export interface PackageTestOptions {
  testTimeout: number;
  hookTimeout?: number;
  globalSetup?: string[];
  fileParallelism?: boolean;
  env?: Record<string, string>;
}

export function packageTestConfig(options: PackageTestOptions): {
  test: PackageTestOptions & {
    include: string[];
    reporters: Array<'default' | 'json'>;
    outputFile: { json: string };
  };
};
