// The explorer's one replay-token grammar, for both roles (auditing a server, auditing an SDK): a shrunk sequence is
// named by the seed its lane drew from, fast-check's path to it, and, where the role draws model commands
// (fc.commands), the commands' replay path; `~patient` after it when a patient lane drew it.
//
//   SEED~PATH                     an SDK sequence (its draws are plain data: seed and path name it)
//   SEED~PATH~REPLAYPATH          a server sequence from a quick lane (REPLAYPATH may be empty)
//   SEED~PATH~REPLAYPATH~patient  a server sequence from a patient lane
//
// Read by one function, which never throws: a token outside the grammar is a typed refusal with the reason.
import type { Pace } from './commands.js';

export interface ReplayToken {
  readonly seed: number;
  /** fast-check's path to the value (`3:0:1`). */
  readonly path: string;
  /** fc.commands' replay path (which drawn commands ran); absent where the role draws plain data. */
  readonly replayPath?: string;
  readonly pace: Pace;
}

export type ReplayTokenResult =
  | { readonly ok: true; readonly token: ReplayToken }
  | { readonly ok: false; readonly message: string };

/** The grammar in words, for messages and `--help`. */
export const REPLAY_TOKEN_FORM = 'SEED~PATH[~REPLAYPATH[~patient]]';

const SEED = /^\d{1,10}$/;
const PATH = /^\d+(?::\d+)*$/;
/** fast-check writes a commands replay path in base64 letters. */
const REPLAY_PATH = /^[A-Za-z0-9+/=_:-]*$/;
const MAX_TOKEN_CHARS = 4096;

/** A token as a report prints it → its parts, or why it is not one (never throws). */
export function parseReplayToken(text: string): ReplayTokenResult {
  const refuse = (why: string): ReplayTokenResult => ({
    ok: false,
    message: `not a replay token: "${text.slice(0, 60)}${text.length > 60 ? '…' : ''}" (${why}; expected ${REPLAY_TOKEN_FORM}, e.g. 42~3:0:1)`,
  });
  if (text.length > MAX_TOKEN_CHARS) return refuse(`longer than ${MAX_TOKEN_CHARS} characters`);
  const parts = text.trim().split('~');
  if (parts.length < 2 || parts.length > 4) return refuse('two to four parts joined by ~');
  const [seed, path, replayPath, pace] = parts as [string, string, string?, string?];
  if (!SEED.test(seed) || Number(seed) >= 2 ** 31) return refuse('the seed is 0 to 2147483647');
  if (!PATH.test(path)) return refuse('the path is numbers joined by :');
  if (replayPath !== undefined && !REPLAY_PATH.test(replayPath))
    return refuse('the replay path is base64 letters');
  if (pace !== undefined && pace !== 'patient')
    return refuse('the fourth part can only be patient');
  return {
    ok: true,
    token: {
      seed: Number(seed),
      path,
      ...(replayPath !== undefined ? { replayPath } : {}),
      pace: pace === 'patient' ? 'patient' : 'quick',
    },
  };
}

/** The token as printed: the inverse of `parseReplayToken`. */
export function formatReplayToken(t: ReplayToken): string {
  const replay = t.replayPath !== undefined || t.pace === 'patient' ? `~${t.replayPath ?? ''}` : '';
  return `${t.seed}~${t.path}${replay}${t.pace === 'patient' ? '~patient' : ''}`;
}
