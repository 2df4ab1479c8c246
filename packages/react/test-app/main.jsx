// A blog of two posts that switches between them without a page load, as a single-page app does.
import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import { ParleyComments, ParleyCount } from '@parley/react';

const { server, siteId, posts, theme, remount } = window.PARLEY_TEST;

function App() {
  const [current, setCurrent] = useState(0);
  const post = posts[current];
  return (
    <main>
      <nav aria-label="Posts">
        <ul>
          {posts.map((each, index) => (
            <li key={each.url}>
              <button type="button" onClick={() => setCurrent(index)}>{each.title}</button> <ParleyCount server={server} siteId={siteId} threadUrl={each.url} />
            </li>
          ))}
        </ul>
      </nav>
      <article>
        <h1>{post.title}</h1>
        <ParleyComments key={remount ? post.url : 'kept'} server={server} siteId={siteId} threadUrl={post.url} theme={theme} />
      </article>
    </main>
  );
}

createRoot(document.getElementById('app')).render(<App />);
