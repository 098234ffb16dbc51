// Runs a composite GitHub Action's `run:` steps here, as a runner would: each step's env with `${{ inputs.* }}` and
// `${{ github.action_path }}` filled in (any other expression is refused), bash as GitHub starts it, and the outputs
// read back from $GITHUB_OUTPUT. `uses:` steps (setting up Node) are what this machine already has.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

interface ActionStep {
  id?: string;
  name?: string;
  uses?: string;
  shell?: string;
  run?: string;
  env?: Record<string, string>;
}

export interface CompositeAction {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

export const readAction = (file: string): CompositeAction =>
  parse(readFileSync(file, 'utf8')) as CompositeAction;

const EXPRESSION = /\$\{\{\s*([a-z0-9_.-]+)\s*\}\}/gi;

export interface ActionRun {
  /** The exit code of the step that ended the run (the last one when all passed). */
  code: number | null;
  /** What each step printed, in order. */
  stdout: string;
  stderr: string;
  /** The step outputs, by step id. */
  outputs: Record<string, Record<string, string>>;
}

/** Runs every `run:` step in order until one fails, with `inputs` (defaults filled in) as a runner would. */
export const runAction = async (
  actionPath: string,
  inputs: Record<string, string>,
  env: Record<string, string> = {},
): Promise<ActionRun> => {
  const action = readAction(join(actionPath, 'action.yml'));
  const given = Object.fromEntries(
    Object.entries(action.inputs).map(([name, input]) => [name, inputs[name] ?? input.default ?? '']),
  );
  for (const name of Object.keys(inputs))
    if (!(name in action.inputs)) throw new Error(`action.yml has no input ${name}`);
  const expand = (text: string) =>
    text.replace(EXPRESSION, (_, path: string) => {
      if (path === 'github.action_path') return actionPath;
      if (path.startsWith('inputs.')) {
        const value = given[path.slice('inputs.'.length)];
        if (value === undefined) throw new Error(`action.yml reads an unknown input: ${path}`);
        return value;
      }
      throw new Error(`the test runner does not evaluate \${{ ${path} }}`);
    });
  const runnerTemp = mkdtempSync(join(tmpdir(), 'action-runner-'));
  const run: ActionRun = { code: 0, stdout: '', stderr: '', outputs: {} };
  for (const [index, step] of action.runs.steps.entries()) {
    if (step.run === undefined) continue;
    const outputFile = join(runnerTemp, `output-${index}`);
    writeFileSync(outputFile, '');
    const stepEnv = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([name, value]) => [name, expand(String(value))]),
    );
    // GitHub's `shell: bash` is `bash --noprofile --norc -eo pipefail {0}`.
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], {
      cwd: runnerTemp,
      env: { ...process.env, ...env, RUNNER_TEMP: runnerTemp, GITHUB_OUTPUT: outputFile, ...stepEnv },
      stdio: 'pipe',
    });
    child.stdout.on('data', (chunk: Buffer) => (run.stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    run.code = code;
    if (step.id)
      run.outputs[step.id] = Object.fromEntries(
        readFileSync(outputFile, 'utf8')
          .split('\n')
          .filter((line) => line.includes('='))
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
    if (code !== 0) break;
  }
  return run;
};
