export interface UrlBuilder {
  booking(sessionId: string): string;
  centre(slug: string): string;
}

/**
 * bookingUrl and centre url: the site's own pages by default, or an operator's site through
 * templates (`{id}`, `{slug}` replaced by the URL-encoded value).
 */
export function urlBuilder(
  publicBaseUrl: string,
  templates: { booking?: string | undefined; centre?: string | undefined } = {},
): UrlBuilder {
  const { booking, centre } = templates;
  return {
    booking: booking
      ? (id) => booking.replaceAll('{id}', encodeURIComponent(id))
      : (id) => `${publicBaseUrl}/stages/${id}`,
    centre: centre
      ? (slug) => centre.replaceAll('{slug}', encodeURIComponent(slug))
      : (slug) => `${publicBaseUrl}/centres/${encodeURIComponent(slug)}`,
  };
}
