/**
 * What an engine scenario is made of, read from plain JSON (ENG-16, ENG-23;
 * the format is spec §15.1.4).
 *
 * A scenario is configuration + tool declarations + hook handlers + the
 * caller's request + runs; each run is a fresh turn or a decision resume with
 * its own scripted model. {@link readScenario} rejects a malformed scenario
 * with {@link ScenarioError} before anything runs.
 */

import { ScenarioError } from './errors.js';
import { clone, hasOwn, isObject, type JsonObject } from './json.js';
import { buildLoopKey } from './loop-key-functions.js';

export type ToolKind = 'executable' | 'approval' | 'hitl' | 'manual';
const TOOL_KINDS: readonly string[] = ['executable', 'approval', 'hitl', 'manual'];

/** One declared tool (ENG-18); `loopKey` is the JSON form, undefined when absent. */
export interface ToolSpec {
  name: string;
  kind: ToolKind;
  loopKey: unknown;
  result: unknown;
  /** The body fails with this message (ENG-21). */
  fails: string | undefined;
}

/** A `DoomLoopDetected` handler with a fixed outcome (ENG-91 … ENG-97). */
export interface HandlerSpec {
  tool: string | undefined;
  when: JsonObject;
  /** The handler's raw result; undefined: it returns nothing. */
  returns: unknown;
  fails: string | undefined;
}

/** The caller's request (ENG-132, ENG-145). */
export interface RequestSpec {
  model: string;
  models: string[] | undefined;
  /** undefined: no tool choice. */
  toolChoice: unknown;
  toolChoiceFrom: number;
  stopWhenSteps: number | undefined;
  /** As given: only `false` turns the final dispatch off, a string is its directive (ENG-23, ENG-147). */
  allowFinalResponse: unknown;
}

/** One scripted model response: its output items, in order (ENG-19). */
export interface ScriptedResponse {
  output: JsonObject[];
}

/** One invocation: a fresh turn (`input`) or a decision resume (ENG-160, ENG-163). */
export interface RunSpec {
  /** undefined: the scenario's option applies. */
  doomLoop: unknown;
  input: JsonObject[] | undefined;
  /** The input was the empty string: later dispatches may leave it out (ENG-174). */
  emptyText: boolean;
  approve: string[];
  reject: string[];
  model: ScriptedResponse[];
  /** A non-empty approval or rejection list makes a decision resume (ENG-158). */
  decisionResume: boolean;
}

/** A whole engine scenario (ENG-16). */
export interface Scenario {
  id: string;
  tools: ToolSpec[];
  /** The tools by name, for the per-call lookups. */
  toolsByName: ReadonlyMap<string, ToolSpec>;
  hooks: HandlerSpec[];
  request: RequestSpec;
  runs: RunSpec[];
  doomLoop: unknown;
  stateAccessor: boolean;
  initialState: JsonObject | undefined;
}

/** The declared tool of that name, or undefined: an unknown call (ENG-18). */
export function toolNamed(scenario: Scenario, name: string): ToolSpec | undefined {
  return scenario.toolsByName.get(name);
}

/** A manual tool has no body, approval or HITL handler (ENG-18). */
export const isExecutable = (tool: ToolSpec): boolean => tool.kind !== 'manual';

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  return typeof value;
}

function object(value: unknown, where: string): JsonObject {
  if (!isObject(value)) throw new ScenarioError(`${where}: expected an object, got ${typeName(value)}`);
  return value;
}

/** Reject members this format does not define, so a typo is an error (ENG-23). */
function known(data: JsonObject, allowed: readonly string[], where: string): void {
  const unknown = Object.keys(data).filter((name) => !allowed.includes(name)).sort();
  if (unknown.length > 0) throw new ScenarioError(`${where}: unknown member(s) ${unknown.join(', ')}`);
}

function list(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw new ScenarioError(`${where}: expected a list, got ${typeName(value)}`);
  return value;
}

function string(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new ScenarioError(`${where}: expected a string, got ${typeName(value)}`);
  return value;
}

function strings(value: unknown, where: string): string[] {
  return list(value, where).map((item, index) => string(item, `${where}[${index}]`));
}

/** A member's value, or `fallback` when the member is absent (a present null stays null). */
function member(data: JsonObject, name: string, fallback: unknown = undefined): unknown {
  return hasOwn(data, name) ? data[name] : fallback;
}

/** An optional string: absent or null reads as undefined. */
function optionalString(data: JsonObject, name: string, where: string): string | undefined {
  const value = member(data, name, null);
  return value === null ? undefined : string(value, `${where}.${name}`);
}

/** A count: an integer (a boolean counts as 0 or 1, as the reference reads it). */
/** A dispatch or step count: a JSON integer; `true`/`false` are not counts (ENG-23). */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
}

function readTool(value: unknown, where: string): ToolSpec {
  const data = object(value, where);
  known(data, ['name', 'kind', 'loopKey', 'result', 'fails'], where);
  const kind = member(data, 'kind', 'executable');
  if (typeof kind !== 'string' || !TOOL_KINDS.includes(kind)) {
    throw new ScenarioError(`${where}.kind: unknown tool kind ${JSON.stringify(kind) ?? 'undefined'}`);
  }
  return {
    name: string(data.name, `${where}.name`),
    kind: kind as ToolKind,
    loopKey: clone(member(data, 'loopKey')),
    result: clone(member(data, 'result', { ok: true })),
    fails: optionalString(data, 'fails', where),
  };
}

function readHandler(value: unknown, where: string): HandlerSpec {
  const data = object(value, where);
  known(data, ['tool', 'when', 'returns', 'fails'], where);
  return {
    tool: optionalString(data, 'tool', where),
    when: clone(object(member(data, 'when', {}), `${where}.when`)),
    returns: clone(member(data, 'returns')),
    fails: optionalString(data, 'fails', where),
  };
}

function readRequest(value: unknown, where: string): RequestSpec {
  const data = object(value, where);
  known(data, ['model', 'models', 'toolChoice', 'toolChoiceFromDispatch', 'stopWhenSteps', 'allowFinalResponse'], where);
  const steps = member(data, 'stopWhenSteps', null);
  const start = count(member(data, 'toolChoiceFromDispatch', 0));
  if (start === undefined || (steps !== null && count(steps) === undefined)) {
    throw new ScenarioError(`${where}: dispatch and step counts must be integers`);
  }
  const models = member(data, 'models', null);
  if ('toolChoice' in data && data.toolChoice === null) {
    // ENG-172: the SDK's reading of a null tool choice is not known; omit the member
    throw new ScenarioError(`${where}.toolChoice: null is not a tool choice`);
  }
  return {
    model: string(member(data, 'model', 'cheap-model'), `${where}.model`),
    models: models === null ? undefined : strings(models, `${where}.models`),
    toolChoice: clone(member(data, 'toolChoice')),
    toolChoiceFrom: start,
    stopWhenSteps: steps === null ? undefined : count(steps),
    allowFinalResponse: clone(member(data, 'allowFinalResponse', true)),
  };
}

/**
 * A message item's `content` is a list of objects, and every `output_text` part
 * carries its text as a string (ENG-23, ENG-177).
 */
function messageContent(item: JsonObject, where: string): void {
  list(member(item, 'content', null), `${where}.content`).forEach((raw: unknown, index: number) => {
    const part = object(raw, `${where}.content[${index}]`);
    if (member(part, 'type', null) === 'output_text') {
      string(member(part, 'text', null), `${where}.content[${index}].text`);
    }
  });
}

function readResponse(value: unknown, where: string): ScriptedResponse {
  const data = object(value, where);
  known(data, ['output'], where);
  const output = list(member(data, 'output', null), `${where}.output`).map((raw, index) => {
    const at = `${where}.output[${index}]`;
    const item = object(raw, at);
    const kind = string(member(item, 'type', null), `${at}.type`);
    if (kind === 'function_call') {
      for (const name of ['name', 'arguments', 'callId']) string(member(item, name, null), `${at}.${name}`);
    }
    if (kind === 'message') messageContent(item, at);
    return clone(item);
  });
  return { output };
}

function readRun(value: unknown, where: string): RunSpec {
  const data = object(value, where);
  known(data, ['doomLoop', 'input', 'approve', 'reject', 'model'], where);
  const given = member(data, 'input', null);
  let input: JsonObject[] | undefined;
  if (typeof given === 'string') input = [{ role: 'user', content: given }];
  else if (given !== null) input = list(given, `${where}.input`).map((item, index) => clone(object(item, `${where}.input[${index}]`)));
  const approve = strings(member(data, 'approve', []), `${where}.approve`);
  const reject = strings(member(data, 'reject', []), `${where}.reject`);
  const model = list(member(data, 'model', []), `${where}.model`).map((response, index) =>
    readResponse(response, `${where}.model[${index}]`),
  );
  const decisionResume = approve.length > 0 || reject.length > 0;
  if (input === undefined && !decisionResume) {
    throw new ScenarioError(`${where}: a run needs input (fresh turn) or decisions`);
  }
  const emptyText = given === '';
  return { doomLoop: clone(member(data, 'doomLoop')), input, emptyText, approve, reject, model, decisionResume };
}

const SCENARIO_MEMBERS = ['id', 'tools', 'hooks', 'request', 'runs', 'doomLoop', 'stateAccessor', 'initialState'];

/** Read and check a scenario (ENG-23); throws {@link ScenarioError} naming the offending part. */
export function readScenario(value: unknown): Scenario {
  const data = object(value, 'scenario');
  known(data, SCENARIO_MEMBERS, 'scenario');
  const tools = list(member(data, 'tools', []), 'tools').map((tool, index) => readTool(tool, `tools[${index}]`));
  for (const tool of tools) buildLoopKey(tool.loopKey, tool.name, new Map()); // ENG-23: check the form now
  const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
  if (toolsByName.size !== tools.length) {
    throw new ScenarioError('tools: two tools share a name');
  }
  const initial = member(data, 'initialState', null);
  return {
    id: string(member(data, 'id', null), 'id'),
    tools,
    toolsByName,
    hooks: list(member(data, 'hooks', []), 'hooks').map((hook, index) => readHandler(hook, `hooks[${index}]`)),
    request: readRequest(member(data, 'request', {}), 'request'),
    runs: list(member(data, 'runs', null), 'runs').map((run, index) => readRun(run, `runs[${index}]`)),
    doomLoop: clone(member(data, 'doomLoop')),
    stateAccessor: member(data, 'stateAccessor', true) !== false,
    initialState: initial === null ? undefined : clone(object(initial, 'initialState')),
  };
}
