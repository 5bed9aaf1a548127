/**
 * What a signed-in page says after an action: a problem (read out at once, role alert) or else a
 * notice (role status), above the page's content.
 */
export function Notices({ problem, notice }: { problem?: string | undefined; notice?: string | undefined }) {
  if (problem)
    return (
      <p class="notice" role="alert">
        {problem}
      </p>
    );
  if (notice)
    return (
      <p class="notice" role="status">
        {notice}
      </p>
    );
  return null;
}
