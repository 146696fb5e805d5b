// A page's or form's outcome, said the same way everywhere: an error announced at once
// (role=alert), a notice announced when the reader is idle (role=status).
export function Messages({ error, notice }: { error?: string | null; notice?: string | null }) {
  return (
    <>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {notice && (
        <p role="status" class="notice">
          {notice}
        </p>
      )}
    </>
  );
}

/** What a failure says: an Error's message, anything else as text. */
export const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Deletes a thing once the user confirms `question`: `request` asks the API, `removed` drops it
 * from the page's list; the outcome is said through the page's error and notice
 * (`${subject} "${name}" deleted.` or why not).
 */
export async function deleteConfirmed(
  say: { setError: (text: string) => void; setNotice: (text: string) => void },
  o: {
    question: string;
    subject: string;
    name: string;
    request: () => Promise<unknown>;
    removed: () => void;
  },
): Promise<void> {
  if (!confirm(o.question)) return;
  say.setError("");
  say.setNotice("");
  try {
    await o.request();
    o.removed();
    say.setNotice(`${o.subject} "${o.name}" deleted.`);
  } catch (err) {
    say.setError(`Could not delete "${o.name}": ${errorText(err)}`);
  }
}

/**
 * Runs a change the user asked for and says how it went through the page's error and notice
 * (`done`, or why not); `then` refreshes what the page shows.
 */
export async function attempt(
  say: { setError: (text: string) => void; setNotice: (text: string) => void },
  work: () => Promise<unknown>,
  done: string,
  then: () => Promise<void>,
): Promise<void> {
  say.setError("");
  say.setNotice("");
  try {
    await work();
    say.setNotice(done);
    await then();
  } catch (err) {
    say.setError(errorText(err));
  }
}
