// KV layout of the rate-limit counters: one key per organization, minute and isolate,
// `rl:<counter key>:<minute>:<isolate id>`, holding the isolate's count in the key's metadata
// (so one list() reads every shard of a minute without a get per key).

const shardPrefix = (counterKey: string, minute: number) => `rl:${counterKey}:${minute}:`;

/**
 * Writes this isolate's count for the minute and returns the sum of the other isolates'
 * shards. The shard outlives its minute briefly (KV's minimum expiration TTL is 60 s).
 */
export async function syncShard(
  kv: KVNamespace,
  counterKey: string,
  minute: number,
  isolateId: string,
  count: number,
): Promise<number> {
  const prefix = shardPrefix(counterKey, minute);
  await kv.put(`${prefix}${isolateId}`, "", { expirationTtl: 120, metadata: { count } });
  let others = 0;
  let cursor: string | undefined;
  do {
    const page: KVNamespaceListResult<{ count?: number }> = await kv.list({ prefix, cursor });
    for (const key of page.keys)
      if (key.name !== `${prefix}${isolateId}`) others += key.metadata?.count ?? 0;
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
  return others;
}
