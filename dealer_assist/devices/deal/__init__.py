"""A dealing simulator: a freshly shuffled shoe dealt by the rules, as trace events, with the
dealer's and the camera's mistakes injected on purpose.

The built-in shoe (`devices.shoe.BuiltInShoe`) plays these events as the frames a real shoe
sends, and the virtual camera (`devices.virtual_camera`) draws the layout they make; the
audit's tests and benchmarks use them as known-good (or known-bad) shoes. Pure: a
`random.Random` and the house rules in, events out.

- `dealing`: the deal itself (`deal_shoe`, `deal_shoe_detailed`) and what it returns;
- `mistakes`: the mistakes a deal can be asked for, the flags each must raise, and on which
  game each one is made;
- `pace`: the kinds of step of a deal, the pause before each, and the trace's timestamps.
"""
