/**
 * The largest message a call carries either way, on every channel and server of the platform (the
 * channel options and createRpcServer set it, so no side refuses what the other sends). grpc's default
 * receive limit, 4 MiB, refused the answers of valid reads: a page of 100 objects with include may hold
 * INCLUDE_BUDGET (5,000 by default) related objects besides, and a fixtures import is one whole file.
 * An answer still larger is ANSWER_TOO_LARGE (errors.ts), never a "retry later".
 */
export const MAX_MESSAGE_BYTES = 256 * 1024 * 1024

/** The channel and server options that set it. */
export const MESSAGE_SIZE_OPTIONS = {
  'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
} as const

/**
 * grpc-js's words for a message over a size limit, on either side and compressed or not ("Received
 * message larger than max", "Sent message larger than max", "… decompresses to a size larger than …",
 * "Attempted to send message with a size larger than …"): what tells it from another RESOURCE_EXHAUSTED.
 */
export const isMessageSizeLimit = (details: unknown): boolean => typeof details === 'string' && /message .*larger than/i.test(details)
