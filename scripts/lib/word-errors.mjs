// How a transcript compares with the text that was spoken (pure: the workers tests run it in
// workerd, the bench and the Node tests in Node): the word error rate, and which words match.

/**
 * The word error rate of `hypothesis` against `reference` (arrays of words): substitutions,
 * deletions and insertions over the reference's length (a Levenshtein distance on words).
 */
export function wordErrorRate(reference, hypothesis) {
  const ref = reference.map((w) => w.toLowerCase());
  const hyp = hypothesis.map((w) => w.toLowerCase());
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const row = [i];
    for (let j = 1; j <= hyp.length; j++)
      row[j] = Math.min(
        previous[j] + 1,
        row[j - 1] + 1,
        previous[j - 1] + (ref[i - 1] === hyp[j - 1] ? 0 : 1),
      );
    previous = row;
  }
  return ref.length ? previous[hyp.length] / ref.length : 0;
}

/**
 * The words of `hypothesis` that match `reference` on the best alignment of the two (the word
 * error rate's): pairs of indexes [reference, hypothesis], in order.
 */
export function alignedWords(reference, hypothesis) {
  const ref = reference.map((w) => w.toLowerCase());
  const hyp = hypothesis.map((w) => w.toLowerCase());
  const cost = Array.from({ length: ref.length + 1 }, (_, i) =>
    Array.from({ length: hyp.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= ref.length; i++)
    for (let j = 1; j <= hyp.length; j++)
      cost[i][j] = Math.min(
        cost[i - 1][j] + 1,
        cost[i][j - 1] + 1,
        cost[i - 1][j - 1] + (ref[i - 1] === hyp[j - 1] ? 0 : 1),
      );
  const pairs = [];
  let i = ref.length;
  let j = hyp.length;
  while (i > 0 && j > 0) {
    if (ref[i - 1] === hyp[j - 1] && cost[i][j] === cost[i - 1][j - 1]) {
      pairs.push([i - 1, j - 1]);
      i--;
      j--;
    } else if (cost[i][j] === cost[i - 1][j - 1] + 1) {
      i--;
      j--;
    } else if (cost[i][j] === cost[i - 1][j] + 1) i--;
    else j--;
  }
  return pairs.reverse();
}
