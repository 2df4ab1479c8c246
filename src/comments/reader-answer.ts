import type { Caller, SessionCaller } from '../auth/caller.ts';
import { withReaderMarks, type SharedPage } from './public-bytes.ts';
import type { CachedResponse, TaggedResponse } from './response-cache.ts';
import { RevisionCache } from './revision-cache.ts';
import type { ViewerMarks } from './view.ts';

/** A session reader's last answer of one URL: the public answer it was made of (by entity tag) and the response. */
export interface ReaderAnswer {
  publicEtag: string;
  response: TaggedResponse;
  /** The response has bytes of its own (a copy with the reader's marks), not the public's. */
  copied: boolean;
}

/** Heap per kept answer besides a copy's bytes (measured: about 77 bytes per kept id), rounded up. */
const BYTES_PER_ANSWER = 100;

/** Session readers' last answers, in `bytes` of memory. */
export function readerAnswerCache(bytes: number): RevisionCache<ReaderAnswer> {
  // An answer that is the public's own bytes holds nothing of its own.
  return new RevisionCache(bytes, (answer) => BYTES_PER_ANSWER + (answer.copied ? answer.response.body.length : 0));
}

/**
 * A reader's answer made of the public's (`shown`, a list or a comment) and their marks on it. A
 * session reader's is kept by URL at their marks revision: while neither the public answer (its
 * entity tag names its bytes) nor their marks move, a reread, such as a widget polling, is the kept
 * response, with no copy made and no entity tag computed.
 */
export function readerAnswer(
  kept: RevisionCache<ReaderAnswer>,
  reader: Caller,
  url: string,
  shown: CachedResponse<SharedPage>,
  marks: ViewerMarks | null,
): TaggedResponse {
  if (reader.kind !== 'session') return withReaderMarks(shown, marks);
  return sessionReaderAnswer(kept, reader, url, shown, marks);
}

function sessionReaderAnswer(kept: RevisionCache<ReaderAnswer>, reader: SessionCaller, url: string, shown: CachedResponse<SharedPage>, marks: ViewerMarks | null) {
  const key = `${reader.userId}\n${url}`;
  const last = kept.get(key, reader.marksRevision);
  if (last?.publicEtag === shown.etag) return last.response;
  const response = withReaderMarks(shown, marks);
  kept.set(key, reader.marksRevision, { publicEtag: shown.etag, response, copied: response.body !== shown.body });
  return response;
}
