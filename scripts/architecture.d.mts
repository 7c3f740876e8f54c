// Types of scripts/architecture.mjs, for test/architecture.test.ts.
export interface ArchitectureViolation {
  check: string;
  file: string;
  line: number;
  message: string;
}
export interface ImportCycle {
  kind: 'value' | 'type';
  files: string[];
  edges: Array<{ file: string; line: number; target: string; kind: string }>;
}
export interface KernelSize {
  lines: number;
  target: number;
  files: number;
  largest: Array<{ path: string; lines: number }>;
}
export declare const SOURCE_ROOTS: string[];
export declare const TEST_FILES: string[];
export declare const KERNEL: string[];
export declare const LIMITS: { functionLines: number; fileLines: number; kernelLines: number; failOnKernelSize: boolean };
export declare const IMPORT_RULES: Array<{
  rule: string;
  files: string[];
  except?: string[];
  forbid?: string[];
  allow?: string[];
  samePluginOnly?: boolean;
}>;
export declare const ENV_READERS: string[];
/** A known violation, reported apart until its owner fixes it. */
export interface PendingEntry {
  check: string;
  file: string;
  includes?: string;
  /** Who fixes it and how; for the reader. */
  why?: string;
}
export declare const PENDING: PendingEntry[];
export declare function checkArchitecture(root?: string, pending?: PendingEntry[]): {
  files: number;
  violations: ArchitectureViolation[];
  pending: ArchitectureViolation[];
  cycles: ImportCycle[];
  kernel: KernelSize;
};
export declare function formatViolations(violations: ArchitectureViolation[]): string;
