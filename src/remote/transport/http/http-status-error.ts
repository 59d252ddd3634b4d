/** An MCP endpoint answered with an HTTP error status; src/bindings turns it into a BerryError. */
export class HttpStatusError extends Error {
  readonly status: number;
  readonly statusText: string;
  readonly method: string;
  /** The request carried `Mcp-Session-Id`: only then can a 404 mean "session expired". */
  readonly hadSession: boolean;
  /** The `WWW-Authenticate` header, if any. */
  readonly challenge: string | undefined;
  /** The start of the response body (bounded), as the server wrote it: redact before showing. */
  readonly body: string;

  constructor(details: {
    status: number;
    statusText: string;
    method: string;
    hadSession: boolean;
    challenge: string | undefined;
    body: string;
  }) {
    super(`HTTP ${details.status}${details.statusText ? ` ${details.statusText}` : ''} answering ${details.method}`);
    this.status = details.status;
    this.statusText = details.statusText;
    this.method = details.method;
    this.hadSession = details.hadSession;
    this.challenge = details.challenge;
    this.body = details.body;
  }

  override get name(): string {
    return 'HttpStatusError';
  }
}

const BODY_BYTES = 2048;

/** Reads at most the first 2 KB of the body (then drops the rest) into an HttpStatusError. */
export async function httpStatusError(method: string, response: Response, hadSession: boolean): Promise<HttpStatusError> {
  let body = '';
  const reader = response.body?.getReader();
  if (reader) {
    const decoder = new TextDecoder();
    try {
      while (body.length < BODY_BYTES) {
        const { value, done } = await reader.read();
        if (done) break;
        body += decoder.decode(value, { stream: true });
      }
    } catch {
      // A body that breaks off is still an error status; what arrived is enough.
    }
    void reader.cancel().catch(() => {});
  }
  return new HttpStatusError({
    status: response.status,
    statusText: response.statusText,
    method,
    hadSession,
    challenge: response.headers.get('www-authenticate') ?? undefined,
    body: body.slice(0, BODY_BYTES),
  });
}
