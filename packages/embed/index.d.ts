/** The props of `<ParleyComments>` in every framework package. */
export interface ParleyCommentsProps {
  /** Parley's base URL, where /embed.js is served (e.g. `https://comments.example.com`). */
  server: string;
  siteId: string;
  /** The thread's address; the page's own address (without #fragment) when left out. */
  threadUrl?: string;
  theme?: 'light' | 'dark' | 'auto';
  /** A BCP 47 language (`de`, `pt-BR`); the page's language when left out. */
  lang?: string;
  /** A reader's Parley session token, from your backend (POST /v1/sessions). */
  sessionToken?: string;
  /** A signed single-sign-on token of your site, exchanged by the widget for a session. */
  ssoToken?: string;
}

/** The props of `<ParleyCount>`: "12 comments" for one thread. */
export interface ParleyCountProps {
  server: string;
  siteId: string;
  threadUrl: string;
}

export type ParleyElement = 'parley-comments' | 'parley-count';

/** Adds `${server}/embed.js` (or /embed/count.js) to the page once; resolves when the element is defined. */
export declare function loadParley(server: string, element: ParleyElement): Promise<unknown>;
export declare function commentsAttributes(props: Omit<ParleyCommentsProps, 'server'>): Record<string, string>;
export declare function countAttributes(props: Omit<ParleyCountProps, 'server'>): Record<string, string>;
