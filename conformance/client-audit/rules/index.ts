// The client audit's rules keyed by rule id: a new id in CLIENT_RULE_IDS cannot compile without its rule.
import { applicationHeadersRule } from './application-headers.js';
import { contentDigestRule } from './content-digest.js';
import { endpointRule } from './endpoint.js';
import { acceptRule, contentTypeRule } from './media-types.js';
import { requestBodyRule } from './request-body.js';
import type { ClientRule, ClientRuleId } from './rule.js';
import {
  signatureLabelRule,
  signatureHeadersRule,
  signatureSyntaxRule,
} from './signature-headers.js';
import {
  algRule,
  coveredComponentsRule,
  createdRule,
  keyidRule,
  nonceRule,
  parameterOrderRule,
} from './signature-parameters.js';
import { signatureVerifiesRule } from './signature-verifies.js';

export const clientRules = {
  'client-endpoint': endpointRule,
  'client-signature-headers': signatureHeadersRule,
  'client-signature-syntax': signatureSyntaxRule,
  'client-signature-label': signatureLabelRule,
  'client-covered-components': coveredComponentsRule,
  'client-signature-parameter-order': parameterOrderRule,
  'client-signature-alg': algRule,
  'client-signature-keyid': keyidRule,
  'client-signature-created': createdRule,
  'client-signature-nonce': nonceRule,
  'client-content-digest': contentDigestRule,
  'client-content-type': contentTypeRule,
  'client-accept': acceptRule,
  'client-request-body': requestBodyRule,
  'client-application-headers': applicationHeadersRule,
  'client-signature-verifies': signatureVerifiesRule,
} as const satisfies Record<ClientRuleId, ClientRule>;
