/** Types for the `synonyms` package (finnlp/synonyms, WordNet-derived thesaurus, MIT). */
declare module 'synonyms' {
  /** Part-of-speech key (`n`, `v`, `a`, `s`, `r`) → synonyms, the head word first. */
  type SynonymEntry = Record<string, string[]>;
  interface SynonymsFunction {
    (word: string, type?: string): SynonymEntry | string[] | undefined;
    /** Head word → entry. */
    dictionary: Record<string, SynonymEntry>;
  }
  const synonyms: SynonymsFunction;
  export default synonyms;
}
