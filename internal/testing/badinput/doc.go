// Package badinput holds one table test over every constructor and option
// of every package: zero, negative and absurd values must give a clear
// error that names the field, never a panic.
package badinput
