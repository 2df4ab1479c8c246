import type { DefineComponent } from 'vue';
import type { ParleyCommentsProps, ParleyCountProps } from '@parley/embed';

export type { ParleyCommentsProps, ParleyCountProps };

/** One thread's comments (`<parley-comments>`), loading `${server}/embed.js` once per page. */
export declare const ParleyComments: DefineComponent<ParleyCommentsProps>;
/** "12 comments" for one thread (`<parley-count>`), loading `${server}/embed/count.js` once per page. */
export declare const ParleyCount: DefineComponent<ParleyCountProps>;
