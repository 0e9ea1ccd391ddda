/*
 * main.c — the onnxcost executable: the command line run with the
 * process's streams (commands.c dispatches it).
 */
#include "cli.h"

int main(int argc, char **argv) {
    return oc_cli_main(argc, argv, NULL);
}
