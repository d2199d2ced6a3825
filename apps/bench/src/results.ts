// The shapes of a run's results and of the report built from them: types only, shared by report.ts, targets.ts
// and notes.ts, which import each other's values but no longer each other's types.
import type { MachineInfo } from './machine.js';
import type { ScenarioName, Settings } from './options.js';
import type { BodiesResult } from './scenarios/bodies.js';
import type { BundleResult } from './scenarios/bundle.js';
import type { ClientResult } from './scenarios/client.js';
import type { DraftResult } from './scenarios/draft.js';
import type { GetResult } from './scenarios/get.js';
import type { KitResult } from './scenarios/kit.js';
import type { SilentResult } from './scenarios/silent.js';
import type { PipelineResult } from './scenarios/pipeline.js';
import type { ProfileResult } from './scenarios/profile.js';
import type { ScaleResult } from './scenarios/scale.js';

/** `reported`: a measured value with no bound to meet. */
export type TargetStatus = 'met' | 'missed' | 'reported' | 'not run' | 'invalid';

export interface TargetResult {
  id: string;
  scenario: ScenarioName;
  target: string;
  measured: string;
  value: number | undefined;
  status: TargetStatus;
}

export interface Results {
  get?: GetResult;
  scale?: ScaleResult;
  draft?: DraftResult;
  bodies?: BodiesResult;
  client?: ClientResult;
  bundle?: BundleResult;
  profile?: ProfileResult;
  pipeline?: PipelineResult;
  kit?: KitResult;
  silent?: SilentResult;
  /** Scenarios that were asked for but failed, with why. */
  errors: Partial<Record<ScenarioName, string>>;
}

export interface Report {
  title: string;
  quick: boolean;
  command: string;
  machine: MachineInfo;
  commit: { commit: string; dirty: boolean } | undefined;
  scenarios: ScenarioName[];
  settings: Settings;
  results: Results;
  targets: TargetResult[];
  finishedAt: string;
  /** Load averages when the run ended: with the start's, how busy the machine was meanwhile. */
  loadAverageAtEnd: [number, number, number];
  /** The host's steal over the run, as a share of the machine's CPU time; undefined where /proc/stat is not. */
  stolenShare?: number;
  durationSec: number;
}
