// The benchmark scripts' command lines: `--name` flags and `--name=value` options.

export function commandLine(args = process.argv.slice(2)) {
  return {
    args,
    flag: (name) => args.includes(`--${name}`),
    option: (name, fallback) => {
      const found = args.find((a) => a.startsWith(`--${name}=`));
      return found ? found.slice(name.length + 3) : fallback;
    },
  };
}
