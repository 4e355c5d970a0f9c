/**
 * The scenario's tools as SDK tools built with the SDK's own `tool()`
 * (ENG-18, ENG-21, ENG-39 … ENG-41).
 *
 * - `executable`: `execute` returns the tool's `result` or throws `fails`;
 * - `approval`: the same body with `requireApproval: true`;
 * - `manual`: `execute: false`;
 * - `hitl`: `onToolCalled`, which returns `null` (a human is needed, the run
 *   pauses) except for a call the caller approves on a decision resume, which
 *   the SDK hands back before the resume's first request: the human's answer
 *   is then the body's.
 *
 * A function-form `loopKey` is the JS function the kit's engine builds for it
 * (`project`, `returns`, `returns-undefined`, `throws`, each counting its
 * invocations); `resolution-fails` (ENG-40) is a field list whose iteration
 * throws, so that the SDK's own resolver fails on it.
 */

import { buildLoopKey } from '../engine/loop-key-functions.js';
import { clone, isObject, viaJson } from '../engine/json.js';
import type { Scenario, ToolSpec } from '../engine/scenario.js';

import { context } from './observe.js';
import type { RunRecord } from './record.js';
import type { SdkEngineModule, ToolBody, ToolContext } from './sdk-api.js';

/** A field list whose iteration throws `message`: resolving the tool's identity fails (ENG-40). */
function failingFieldList(message: string): string[] {
  const fields = ['__resolution_fails__'];
  Object.defineProperty(fields, Symbol.iterator, {
    value: () => {
      throw new Error(message);
    },
  });
  return fields;
}

/**
 * The `loopKey` the SDK gets for a scenario's form (checked by the scenario
 * reader, ENG-23). `project` reads the members of an object or an array
 * only (ENG-154); on arguments that are a string a JS function would also
 * find its `length` and characters, so a note says the form reads none.
 */
export function sdkLoopKey(form: unknown, toolName: string, run: RunRecord): unknown {
  if (isObject(form) && form.function === 'resolution-fails') return failingFieldList(String(form.message ?? ''));
  const key = buildLoopKey(form, toolName, run.invocations);
  if (typeof key !== 'function') return key;
  const projects = isObject(form) && form.function === 'project';
  return (args: unknown) => {
    if (projects && typeof args === 'string') {
      run.notes.push(`tool ${toolName}: project got arguments that are a string and reads no member of them (§15.1.4, ENG-154)`);
    }
    return clone((key as (args: unknown) => unknown)(args));
  };
}

/** The call id a tool body runs for: from its context, else from the instrumented call. */
function callIdOf(toolContext: ToolContext | undefined): string | null {
  const id = toolContext?.toolCall?.callId ?? toolContext?.callId ?? context().callId;
  return typeof id === 'string' ? id : null;
}

/** The tool's body: records the execution (ENG-140), then returns the result or fails (ENG-21). */
function body(spec: ToolSpec, run: RunRecord): ToolBody {
  return (input, toolContext) => {
    const round = (run.result as { doomLoopRound?: unknown } | undefined)?.doomLoopRound;
    run.executions.push({
      callId: callIdOf(toolContext),
      name: spec.name,
      arguments: viaJson(input === undefined ? null : input),
      round: typeof round === 'number' ? round : 0,
    });
    if (spec.fails !== undefined) throw new Error(spec.fails);
    return clone(spec.result);
  };
}

/** The scenario's tools, built with the SDK's `tool()`. */
export function sdkTools(sdk: SdkEngineModule, scenario: Scenario, run: RunRecord): unknown[] {
  const anything = sdk.z.any();
  return scenario.tools.map((spec) => {
    const config: Record<string, unknown> = { name: spec.name, inputSchema: anything };
    if (spec.loopKey !== undefined) config.loopKey = sdkLoopKey(spec.loopKey, spec.name, run);
    const execute = body(spec, run);
    switch (spec.kind) {
      case 'manual':
        return sdk.tool({ ...config, execute: false });
      case 'approval':
        return sdk.tool({ ...config, requireApproval: true, execute });
      case 'hitl':
        return sdk.tool({
          ...config,
          outputSchema: anything,
          onToolCalled: (input: unknown, toolContext?: ToolContext) => {
            const approved = run.spec.decisionResume && run.beforeFirstDispatch && run.spec.approve.includes(callIdOf(toolContext) ?? '');
            return approved ? execute(input, toolContext) : null;
          },
        });
      default:
        return sdk.tool({ ...config, execute });
    }
  });
}

