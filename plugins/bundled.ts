/**
 * The bundled plugins that run on every runtime, in load order. Runtime entries add their platform's own
 * (the `fs` store on Node, Deno and Bun) and the user's plugins after these.
 */
import type { Plugin } from '../core/plugin.ts';
import storageMemory from './storage/memory.ts';
import authStaticKey from './auth/static-key.ts';
import authApiKeys from './auth/api-keys.ts';
import authOidc from './auth/oidc.ts';
import pbac from './pbac/index.ts';
import audit from './audit/index.ts';
import system from './system/index.ts';
import aes from './aes/index.ts';
import catalog from './catalog/index.ts';
import llm from './llm/index.ts';
import mutators from './mutators/index.ts';
import attacks from './attacks/index.ts';
import doctor from './doctor/index.ts';
import explain from './explain/index.ts';
import consolePlugin from './console/index.tsx';
import schedules from './schedules/index.ts';
import signerLocal from './signers/local.ts';
import signerAwsKms from './signers/aws-kms.ts';
import signerGcpKms from './signers/gcp-kms.ts';
import signerAzureKeyVault from './signers/azure-keyvault.ts';
import certification from './certification/index.ts';
import evidence from './evidence/index.ts';
import compare from './compare/index.ts';
import reports from './reports/index.ts';
import agentScripted from './agents/scripted.ts';
import agentHttp from './agents/http.ts';
import agentOpenai from './agents/openai.ts';
import agentReplay from './agents/replay.ts';
import agentRegistry from './agent-registry/index.ts';
import metrics from './metrics/index.ts';
import shims from './shims/index.ts';
import evaluation from './evaluation/index.ts';
import specToEval from './spec-to-eval/index.ts';
import suites from './suites/index.ts';
import datasets from './datasets/index.ts';
import retention from './retention/index.ts';

export function portablePlugins(): Plugin[] {
  return [storageMemory, authStaticKey, authApiKeys, authOidc, pbac, audit, system, llm, aes, catalog, doctor, explain, consolePlugin, mutators, attacks, schedules, signerLocal, signerAwsKms, signerGcpKms, signerAzureKeyVault, certification, evidence, compare, reports, agentScripted, agentHttp, agentOpenai, agentReplay, agentRegistry, metrics, shims, evaluation, specToEval, suites, datasets, retention];
}
