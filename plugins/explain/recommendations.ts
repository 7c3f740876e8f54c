/**
 * Concrete remediation per failure code, with a fallback per taxonomy area so a code added later still
 * gets advice.
 */

const BY_CODE: Record<string, string> = {
  'SECURITY.SECRET_LEAK': 'Remove secrets from the agent context; where an agent must handle them, pass references instead of values and add an output filter that blocks the canary patterns before replies leave the agent.',
  'SECURITY.PROMPT_INJECTION': 'Treat retrieved and user-supplied text as data: isolate it from instructions (delimiters, a separate message role), strip instruction-like content from tool results, and refuse instructions that arrive through data channels.',
  'SAFETY.MISSING_REFUSAL': 'Add an explicit refusal policy for this request class to the system prompt and a guard model or classifier ahead of generation; re-run the scenario to confirm the refusal holds under mutations.',
  'SAFETY.HARMFUL_CONTENT': 'Put a content-safety filter on the output path and tighten the policy prompt for the harmful category reported in the evidence. When the evidence names what the request asked for (`requested`), the agent followed a request for harm with steps: add a refusal policy for that request class, as for a missing refusal.',
  'PRIVACY.PII_LEAK': 'Redact personal data (emails, phone numbers, card numbers, IBANs, national ids) from agent output and from what upstream agents write to shared channels; minimise what the agent can read.',
  'PARITY.COUNTERFACTUAL_MISMATCH': 'The decision changed when only a demographic attribute changed: remove the attribute from decision inputs, add counterfactual examples to evaluation, and review the prompt for biased instructions.',
  'TRANSPARENCY.NO_AI_DISCLOSURE': 'Require the agent to state that it is an AI system whenever asked or when the user may believe otherwise (EU AI Act Art. 50), and never claim to be human.',
  'LOGIC.TASK_FAILED': 'Compare the output with the expected value in the evidence; check the task instructions, the tools available to the agent and the data it reads.',
  'LOGIC.STATE_MISMATCH': 'The world the agent left differs from the expected outcome: follow the causal chain\'s tool calls and state changes to the first wrong step (wrong record, repeated or missing write), then fix the agent\'s plan or its tool descriptions.',
  'LOGIC.FALSE_CLAIM': 'The agent told the user the work was done after the world refused it (or it was never attempted): make the agent read each tool result before it answers, and report a refusal or an error in its own words instead of the plan it meant to carry out.',
  'LOGIC.TOOL_NOT_CALLED': 'The agent finished without a tool the task needs: check that the tool is offered and well described, and that the agent is instructed to act rather than only answer.',
  'LOGIC.TOOL_ORDER': 'The agent called the right tools in the wrong order: make the required sequence explicit (look up before changing), or check the agent\'s planning step.',
  'LOGIC.TOOL_ARGUMENTS': 'A tool was called with the wrong arguments: compare the evidence with the task; agents often take ids or amounts from the wrong record.',
  'RELIABILITY.TOOL_BUDGET_EXCEEDED': 'The agent made too many tool calls: look for loops or trial and error in the trace, and handle tool errors instead of retrying blindly.',
  'SECURITY.EXCESSIVE_AGENCY': 'The agent called a tool it must not use for this task: remove the tool from what this agent may call, or require a confirmation step before it acts.',
  'RELIABILITY.LATENCY_BUDGET_EXCEEDED': 'Profile the slow step (model call, tool call, retrieval); cache or parallelise it, choose a faster model, or agree a realistic budget.',
  'RESILIENCE.OUTCOME_FLIPPED': 'The outcome changed under an input perturbation: harden input handling (normalise typos, case, whitespace, encodings), add the failing variants as regression cases, and re-run with the same seed.',
  'INFRA.AGENT_TIMEOUT': 'The agent did not answer in time: check its health and capacity, or raise the adapter timeout (agent.timeout_ms) if the task is legitimately long.',
  'INFRA.AGENT_ERROR': 'The agent endpoint returned an error or an unreadable reply: check its logs for the request id and that it answers {output} as the http adapter expects.',
  'INFRA.SSRF_BLOCKED': 'The agent URL resolves to a private or metadata address: expose the agent on an allowed address, or add its host to AEH_ALLOW_HOSTS if it is a trusted private agent.',
  'INFRA.METRIC_ERROR': 'A metric could not be computed: check its params in the scenario against GET /api/v1/metrics.',
  'INFRA.METRIC_TIMEOUT': 'A metric ran past its time budget on this answer: look for an unusually long or repetitive answer; an operator can raise AEH_METRIC_BUDGET_MS.',
};

const BY_AREA: Record<string, string> = {
  SAFETY: 'Strengthen the safety policy and add an output guard for the reported category.',
  SECURITY: 'Separate instructions from data and keep secrets out of the agent context.',
  PRIVACY: 'Redact personal data from outputs and shared channels.',
  PARITY: 'Review decision inputs for protected attributes and add counterfactual tests.',
  FAIRNESS: 'Review decision inputs for protected attributes and add counterfactual tests.',
  TRANSPARENCY: 'Make the agent disclose that it is an AI and explain its decisions.',
  LOGIC: 'Check the task instructions and the expected value against the agent output.',
  RELIABILITY: 'Check correctness and latency of the failing step.',
  RESILIENCE: 'Harden input handling against perturbations and add the variants as regression cases.',
  POLICY: 'Align the agent behaviour with the referenced policy and document exceptions.',
  INFRA: 'Check the agent endpoint and the evaluation environment (doctor).',
};

/** The recommendation for a failure code. */
export function recommendationFor(code: string): string {
  if (BY_CODE[code]) return BY_CODE[code];
  const area = code.split('.')[0]?.toUpperCase() ?? '';
  return BY_AREA[area] ?? 'Inspect the trace events on the causal chain and the failure evidence.';
}
