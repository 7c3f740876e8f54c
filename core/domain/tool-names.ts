/** Tool names: how scenarios, traces and function-calling APIs spell the action of a shim. */

/**
 * `payments.refund` and `payments__refund` name the same tool (function-calling APIs accept only the second):
 * the shim and action a tool name refers to, or `undefined` for a name of another form.
 */
export function toolKey(name: string): { shim: string; action: string } | undefined {
  const match = /^([a-z][a-z0-9_]{0,39}?)(?:\.|__)([a-z][a-z0-9_]{0,47})$/.exec(name);
  return match ? { shim: match[1], action: match[2] } : undefined;
}

/** A tool name in the form scenarios and traces use (`shim.action`); names of other tools are kept. */
export function canonicalToolName(name: string): string {
  const key = toolKey(name);
  return key ? `${key.shim}.${key.action}` : name;
}
