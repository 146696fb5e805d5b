// Read access to the local D1 database (what `npm run dev` serves) for picking bench inputs.
export { d1Query, d1Rows } from "../../scripts/bulk/d1.mjs";

/** SQL string literal. */
export const sqlString = (value) => `'${String(value).replace(/'/g, "''")}'`;
