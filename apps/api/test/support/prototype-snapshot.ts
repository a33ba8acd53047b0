/** Object.prototype as it is now: its own property names and what each holds (to prove nothing polluted it). */
export const prototypeSnapshot = () =>
  Object.getOwnPropertyNames(Object.prototype).map((name) => [
    name,
    Object.getOwnPropertyDescriptor(Object.prototype, name)?.value,
  ]);
