import { describe, expect, it } from 'vitest';
import {
  computeContentDigest,
  parseContentDigest,
  verifyContentDigest,
} from '../src/digest/content-digest.js';

const enc = (s: string) => new TextEncoder().encode(s);
const LF_BODY = enc('{"hello": "world"}\n'); // RFC 9530 §2, §3, Appendices B and C: 19 bytes
const NO_LF_BODY = enc('{"hello": "world"}'); // RFC 9530 Appendix D and RFC 9421 test-request: 18 bytes

describe('RFC 9530 published examples', () => {
  it('§2: sha-512 of the LF-terminated body', () => {
    expect(LF_BODY.length).toBe(19);
    const value =
      'sha-512=:YMAam51Jz/jOATT6/zvHrLVgOYTGFy1d6GJiOHTohq4yP+pgk4vf2aCsyRZOtw8MjkM7iw7yZ/WkppmM44T3qg==:';
    expect(computeContentDigest(LF_BODY)).toBe(value);
    expect(verifyContentDigest(value, LF_BODY).ok).toBe(true);
    expect(verifyContentDigest(value, NO_LF_BODY)).toMatchObject({
      ok: false,
      code: 'DIGEST_MISMATCH',
    });
  });

  it('§2: the two-member example is a syntax example (its sha-256 is the brotli digest)', () => {
    const value =
      'sha-256=:d435Qo+nKZ+gLcUHn7GQtQ72hiBVAgqoLsZnZPiTGPk=:, sha-512=:YMAam51Jz/jOATT6/zvHrLVgOYTGFy1d6GJiOHTohq4yP+pgk4vf2aCsyRZOtw8MjkM7iw7yZ/WkppmM44T3qg==:';
    expect(parseContentDigest(value).ok).toBe(true);
    expect(verifyContentDigest(value, LF_BODY).ok).toBe(true);
    expect(verifyContentDigest(value, LF_BODY, { accept: ['sha-256', 'sha-512'] })).toMatchObject({
      ok: false,
      code: 'DIGEST_MISMATCH',
    });
    const brotli = Buffer.from('0b09807b2268656c6c6f223a2022776f726c64227d0a03', 'hex');
    expect(
      verifyContentDigest('sha-256=:d435Qo+nKZ+gLcUHn7GQtQ72hiBVAgqoLsZnZPiTGPk=:', brotli, {
        accept: ['sha-256'],
      }).ok,
    ).toBe(true);
    expect(computeContentDigest(brotli)).toBe(
      'sha-512=:db7fdBbgZMgX1Wb2MjA8zZj+rSNgfmDCEEXM8qLWfpfoNY0sCpHAzZbj09X1/7HAb7Od5Qfto4QpuBsFbUO3dQ==:',
    );
  });

  it('Appendix B.5/B.6/C.1: the over-padded sha-256 value is malformed', () => {
    const value = 'sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg==:';
    expect(parseContentDigest(value)).toMatchObject({ ok: false, code: 'DIGEST_MALFORMED' });
    expect(computeContentDigest(LF_BODY, ['sha-256'])).toBe(
      'sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:',
    );
  });

  it('Appendix D: sample values for the body without LF', () => {
    expect(computeContentDigest(NO_LF_BODY, ['sha-512', 'sha-256'])).toBe(
      'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:, sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:',
    );
  });

  it('RFC 9421 test-request Content-Digest and the corrected test-response digest', () => {
    expect(computeContentDigest(NO_LF_BODY)).toBe(
      'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:',
    );
    expect(computeContentDigest(enc('{"message": "good dog"}'))).toBe(
      'sha-512=:mEWXIS7MaLRuGgxOBdODa3xqM1XdEvxoYhvlCFJ41QJgJc4GTsPp29l5oGX69wWdXymyU0rjJuahq4l5aGgfLQ==:',
    );
    // The header printed on test-response in RFC 9421 B.2 is a known defect: it does not match its body.
    expect(
      verifyContentDigest(
        'sha-512=:JlEy2bfUz7WrWIjc1qV6KVLpdr/7L5/L4h7Sxvh6sNHpDQWDCL+GauFQWcZBvVDhiyOnAQsxzZFYwi0wDH+1pw==:',
        enc('{"message": "good dog"}'),
      ),
    ).toMatchObject({ ok: false, code: 'DIGEST_MISMATCH' });
  });
});
