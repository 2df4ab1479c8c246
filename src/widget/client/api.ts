import type { CommentView } from '../../comments/view.ts';
import type { GuestFormSettings } from './guest-form.ts';
import { retryAfterSeconds, type ProblemLike } from './strings.ts';

/**
 * The API's comment, as the server defines it (a type only: nothing of the server is bundled). A
 * list's top-level comment also says where the replies its list left out continue (`next_cursor`).
 */
export type Comment = CommentView & { next_cursor?: string | null };

export interface CommentPage {
  comments: Comment[];
  total: number;
  page: number;
}

export interface WidgetSettings {
  site: { id: string; name: string; allow_guests: boolean; reactions: string[]; live_updates: boolean };
  viewer: { signed_in: boolean; name: string | null; moderator: boolean };
  mail: { enabled: boolean; address_known: boolean; notify_replies: boolean };
  /** What a guest's comment is sent with; null for a signed-in reader. */
  form: GuestFormSettings | null;
}

export class ApiProblem extends Error implements ProblemLike {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly retryAfter: number | null,
    readonly errors?: Array<{ path: string; message: string }>,
  ) {
    super(detail);
  }
}

/** The widget's only channel to Parley: bearer token in a header, never cookies. */
export class Api {
  constructor(
    private readonly base: string,
    private readonly token: string | null,
  ) {}

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {};
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(this.base + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch {
      throw new ApiProblem(0, 'network', '', null);
    }
    const data = await response.json().catch(() => null);
    if (!response.ok) {
      throw new ApiProblem(response.status, data?.code ?? 'error', data?.detail ?? '', retryAfterSeconds(response.headers.get('retry-after')), data?.errors);
    }
    return data as T;
  }
}
