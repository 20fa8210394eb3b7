import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/** The frame of the pages before a session: the product's name, the page's h1, one card. */
export function AuthLayout(props: { title: string; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Punchclock`;
  }, [props.title]);
  return (
    <main class="auth-page" id="main">
      <div class="auth-card">
        <p class="auth-brand" aria-hidden="true">
          Punchclock
        </p>
        <h1 ref={heading} tabIndex={-1}>
          {props.title}
        </h1>
        {props.children}
      </div>
    </main>
  );
}
