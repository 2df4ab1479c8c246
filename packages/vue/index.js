import { defineComponent, h, watchEffect } from 'vue';
import { commentsAttributes, countAttributes, loadParley } from '@parley/embed';

const required = { type: String, required: true };

/**
 * A component drawing `tag` with the attributes `attributes` makes of its props: a changed prop
 * changes the attribute, and the element reloads itself.
 */
function wrapper(name, tag, props, attributes) {
  return defineComponent({
    name,
    props,
    setup(props) {
      watchEffect(() => void loadParley(props.server, tag), { flush: 'post' });
      return () => h(tag, attributes(props));
    },
  });
}

/** `<parley-comments>`, loading `${server}/embed.js` once per page. */
export const ParleyComments = wrapper(
  'ParleyComments',
  'parley-comments',
  { server: required, siteId: required, threadUrl: String, theme: String, lang: String, sessionToken: String, ssoToken: String },
  commentsAttributes,
);

/** `<parley-count>`: "12 comments" for one thread, loading `${server}/embed/count.js` once per page. */
export const ParleyCount = wrapper('ParleyCount', 'parley-count', { server: required, siteId: required, threadUrl: required }, countAttributes);
