// Types of two untyped packages the BM25 baseline uses.
declare module 'wink-porter2-stemmer' {
  /** Porter2 (Snowball English) stem of one lower-cased word. */
  export default function stem(word: string): string;
}
declare module 'stopword' {
  /** English stopwords, lower case. */
  export const eng: string[];
}
