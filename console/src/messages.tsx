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
