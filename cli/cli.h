/* Sub-commands of the clperm command-line tool. */
#ifndef CLPERM_CLI_H
#define CLPERM_CLI_H

int devices_main(int argc, char **argv);
int quality_main(int argc, char **argv);
int rng_main(int argc, char **argv);

#endif
