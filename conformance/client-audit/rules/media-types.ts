// The client audit's media-type rules (spec: each endpoint's request, and Versioning): Content-Type and Accept
// as the spec shows them per endpoint, with the version the endpoint uses.
import { mediaTypeOf, type EndpointSpec } from '../endpoints.js';
import { notApplicable, outcome, type ClientRule, type RuleOutcome } from './rule.js';

export const contentTypeRule: ClientRule = ({ spec, values }) => {
  if (spec === undefined || spec.contentType === undefined)
    return notApplicable(
      'client-content-type',
      spec === undefined ? 'not a spec endpoint' : 'no Content-Type shown for this endpoint',
    );
  return [judgeContentType(spec, spec.contentType, values('content-type'))];
};

function judgeContentType(
  spec: EndpointSpec,
  contentType: NonNullable<EndpointSpec['contentType']>,
  ct: string[],
): RuleOutcome {
  const rule = 'client-content-type';
  const media = ct.length === 1 ? mediaTypeOf(ct[0]!) : undefined;
  if (ct.length === 0)
    return outcome(
      rule,
      'violation',
      spec.requirement,
      `missing "Content-Type": the ${spec.title} request carries ${contentType.media}`,
      { expected: contentType.media, received: '(absent)' },
    );
  if (ct.length > 1)
    return outcome(
      rule,
      'violation',
      spec.requirement,
      `"Content-Type" sent on ${ct.length} lines`,
      {
        expected: contentType.media,
        received: ct.join(' | '),
      },
    );
  if (media === contentType.media)
    return outcome(rule, 'pass', contentType.versionRequirement, `Content-Type ${ct[0]!}`);
  if (media !== undefined && /^application\/vnd\.service\.v[^+]*\+json$/.test(media))
    return outcome(
      rule,
      'violation',
      contentType.versionRequirement,
      `Content-Type names version "${media}"; the ${spec.title} endpoint uses ${contentType.media}`,
      { expected: contentType.media, received: ct[0]! },
    );
  return outcome(
    rule,
    'violation',
    spec.requirement,
    `Content-Type "${ct[0]!}" is not ${contentType.media}`,
    { expected: contentType.media, received: ct[0]! },
  );
}

export const acceptRule: ClientRule = ({ spec, values }) => {
  const rule = 'client-accept';
  const accept = values('accept');
  if (spec === undefined) return notApplicable(rule, 'not a spec endpoint');
  if (spec.accept !== undefined) return [judgeAccept(spec, spec.accept, accept)];
  if (accept.length === 0) return notApplicable(rule, `no Accept shown for ${spec.title}`);
  return [
    outcome(
      rule,
      'observation',
      spec.requirement,
      `Accept "${accept.join(', ')}" sent (the spec shows no Accept for ${spec.title})`,
    ),
  ];
};

function judgeAccept(
  spec: EndpointSpec,
  shown: NonNullable<EndpointSpec['accept']>,
  accept: string[],
): RuleOutcome {
  const rule = 'client-accept';
  const ranges = accept
    .join(',')
    .split(',')
    .map(mediaTypeOf)
    .filter((r) => r !== '');
  if (accept.length === 0)
    return outcome(
      rule,
      'violation',
      spec.requirement,
      `missing "Accept": the ${spec.title} request carries Accept ${shown.media}`,
      { expected: shown.media, received: '(absent)' },
    );
  if (ranges.includes(shown.media))
    return outcome(rule, 'pass', shown.versionRequirement, `Accept ${accept.join(', ')}`);
  return outcome(
    rule,
    'violation',
    shown.versionRequirement,
    `Accept "${accept.join(', ')}" does not name ${shown.media}`,
    { expected: shown.media, received: accept.join(', ') },
  );
}
