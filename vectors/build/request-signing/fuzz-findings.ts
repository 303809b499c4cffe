// The verify cases differential fuzzing found (npm run fuzz:diff, scripts/fuzz-diff/): each is a minimised input on
// which two implementations of the profile disagreed, kept with payconform's answer once the disagreement was
// resolved (docs/vectors.md, "Differential fuzzing").
import { addHeaderLine, headerValue, mapHeader } from '../requests.js';
import { n, rules, S, type VerifySpec } from './context.js';

function fuzzSpecs(): VerifySpec[] {
  return [
    {
      id: 'verify-label-duplicated-parameter-repeated',
      description:
        'Signature-Input sent twice, each line carrying nonce twice: a duplicated sig1 label and a repeated parameter; the label is reported.',
      source: `${S.v2}; RFC 8941 §4.2.2, §4.2.3.2`,
      result: 'acceptable',
      flags: ['Label', 'Strictness', 'Fuzz'],
      code: 'LABEL_DUPLICATED',
      comment: `${rules('strict-parameters', 'single-label')}. Both are step 2 refusals; the duplicated label is reported first (the Dictionary is read whole before its members' parameters). Found by npm run fuzz:diff: the Python adapter answered SIGNATURE_INPUT_MALFORMED (fixed).`,
      change: (r) => {
        const once = mapHeader(r, 'signature-input', (v) =>
          v.replace(
            `;nonce="${n('verify-label-duplicated-parameter-repeated')}"`,
            `;nonce="x";nonce="${n('verify-label-duplicated-parameter-repeated')}"`,
          ),
        );
        return addHeaderLine(once, 'signature-input', headerValue(once, 'signature-input'));
      },
    },
    {
      id: 'verify-parameter-unknown-decimal',
      description:
        'An unknown parameter with a Decimal value (;x=1767225600.5) after the four profile parameters.',
      source: `${S.v2}; RFC 8941 §3.3.2`,
      result: 'acceptable',
      flags: ['Strictness', 'ParametersPolicy', 'Fuzz'],
      code: 'SIGNATURE_INPUT_MALFORMED',
      comment: `${rules('strict-parameters')}: a Decimal parameter, known or not, is refused as malformed before the parameter list is compared (@signature-params would re-serialise it, and RFC 8941 §4.1.5 need not give back the text signed). Found by npm run fuzz:diff: the Python adapter answered PARAMETERS_MISMATCH or CREATED_INVALID (fixed).`,
      change: (r) => mapHeader(r, 'signature-input', (v) => `${v};x=1767225600.5`),
    },
    {
      id: 'verify-parameter-unknown-decimal-zero-fraction',
      description:
        'An unknown parameter with a Decimal value whose fraction is zero (;x=1767225600.0) after the four profile parameters.',
      source: `${S.v2}; RFC 8941 §3.3.2`,
      result: 'acceptable',
      flags: ['Strictness', 'ParametersPolicy', 'Fuzz'],
      code: 'SIGNATURE_INPUT_MALFORMED',
      comment: `${rules('strict-parameters')}: as verify-parameter-unknown-decimal; a JavaScript parser reads 1767225600.0 as the integral number 1767225600, so the Decimal is seen in the text only. Found by npm run fuzz:diff (10-minute run, seed 9000): payconform checked the text of known Integer parameters only and answered the next step 2 refusal (fixed); the Python adapter answered SIGNATURE_INPUT_MALFORMED.`,
      change: (r) => mapHeader(r, 'signature-input', (v) => `${v};x=1767225600.0`),
    },
    {
      id: 'verify-application-id-leading-tab-valid',
      description:
        'x-application-id sent with a leading tab after signing: not part of the field value, so the id and the base are unchanged.',
      source: `${S.v5}; RFC 9110 §5.5; RFC 9421 §2.1`,
      result: 'valid',
      flags: ['ApplicationCredentials', 'Fuzz'],
      comment:
        "Leading and trailing spaces and tabs are not part of a field value (RFC 9110 §5.5), and RFC 9421 §2.1 trims them for the base; the application lookup must trim them too. Found by npm run fuzz:diff: the interop adapters' shared glue looked the untrimmed id up and refused (APPLICATION_ID_UNKNOWN; fixed). The base is expected.signatureBase.",
      change: (r) => mapHeader(r, 'x-application-id', (v) => `\t${v}`),
    },
    {
      id: 'verify-label-duplicated-display-string',
      description:
        'Signature-Input sent twice; the first line also carries an RFC 9651 Display String (;x=%"caf%c3%a9"), which a last-wins parser drops with the first member.',
      source: `${S.v2}; RFC 8941 §3.3; RFC 9421 §4.1`,
      result: 'invalid',
      flags: ['Label', 'Syntax', 'Fuzz'],
      code: 'SIGNATURE_INPUT_MALFORMED',
      comment: `${rules('rfc8941-types', 'single-label')}. The field is not RFC 8941, so it does not parse, whatever its labels. Found by npm run fuzz:diff: payconform answered LABEL_DUPLICATED (its RFC 9651 parser kept only the last sig1 member, so the Display String was not seen; fixed: the text is checked for RFC 9651 syntax); the Python adapter answered SIGNATURE_INPUT_MALFORMED.`,
      change: (r) => {
        const first = mapHeader(r, 'signature-input', (v) => `${v};x=%"caf%c3%a9"`);
        return addHeaderLine(first, 'signature-input', headerValue(r, 'signature-input'));
      },
    },
  ];
}

export const fuzzFindingGroups = [fuzzSpecs];
