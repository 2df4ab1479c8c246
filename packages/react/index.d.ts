import type { ReactElement } from 'react';
import type { ParleyCommentsProps, ParleyCountProps } from '@parley/embed';

export type { ParleyCommentsProps, ParleyCountProps };

/** One thread's comments (`<parley-comments>`), loading `${server}/embed.js` once per page. */
export declare function ParleyComments(props: ParleyCommentsProps): ReactElement;
/** "12 comments" for one thread (`<parley-count>`), loading `${server}/embed/count.js` once per page. */
export declare function ParleyCount(props: ParleyCountProps): ReactElement;
